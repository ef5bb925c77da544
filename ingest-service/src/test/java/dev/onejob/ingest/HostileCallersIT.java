package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Job;
import dev.onejob.ingest.http.Route;
import dev.onejob.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Callers who should not get in, or not get at what they ask for: no or bad credentials (401 with
 * WWW-Authenticate, nothing written), another owner's job (404 exactly like a missing one, whatever else the
 * request carries), a submitter calling operator endpoints and an operator submitting (403, nothing written).
 */
class HostileCallersIT {
    private final IngestFixture ingest = IngestFixture.shared();
    private final ApiAnswerRules rules = new ApiAnswerRules(ApiDocument.load());

    @TempDir
    Path dir;

    /** Authorization header values (null: none) that name no caller. */
    private static Map<String, List<String>> badCredentials() {
        String alice = IngestFixture.ALICE;
        Map<String, List<String>> bad = new LinkedHashMap<>();
        bad.put("no Authorization header", List.of());
        bad.put("the scheme alone", List.of("Bearer"));
        bad.put("an empty bearer", List.of("Bearer "));
        bad.put("a bad token", List.of("Bearer not-a-token"));
        bad.put("the last character changed", List.of("Bearer " + alice.substring(0, alice.length() - 1) + "m"));
        bad.put("the last character missing", List.of("Bearer " + alice.substring(0, alice.length() - 1)));
        bad.put("one character more", List.of("Bearer " + alice + "n"));
        bad.put("another case", List.of("Bearer " + alice.toUpperCase()));
        bad.put("a space and more after the token", List.of("Bearer " + alice + " x"));
        bad.put("a non-breaking space after the token", List.of("Bearer " + alice + "\u00a0"));
        bad.put("Basic with owner and token", List.of("Basic " + Base64.getEncoder()
                .encodeToString(("alice:" + alice).getBytes(StandardCharsets.UTF_8))));
        bad.put("Basic with the token", List.of("Basic " + alice));
        bad.put("the token without a scheme", List.of(alice));
        bad.put("two Authorization headers, the bad one first", List.of("Bearer nope", "Bearer " + alice));
        return bad;
    }

    @Test
    void requestsWithoutAValidBearerTokenAre401WithWwwAuthenticateAndChangeNothing() {
        // given a job of alice's, with its attempt
        JsonNode job = created(IngestFixture.ALICE, "victim-" + UUID.randomUUID());
        String jobId = job.path("id").asText();
        String attemptId = job.path("attempts").get(0).path("id").asText();

        for (Map.Entry<String, List<String>> credentials : badCredentials().entrySet()) {
            // when a caller with these credentials calls every route of the server's table that needs a token, aimed
            // at alice's job and attempt with a body that would do, and looks her job up by its key
            String key = "unauthenticated-" + UUID.randomUUID();
            List<RawHttp.Response> answers = new ArrayList<>();
            for (Route route : ingest.service.routes()) {
                if (route.role() != Route.Role.PUBLIC) {
                    answers.add(call(credentials.getValue(), route, jobId, attemptId, key));
                }
            }
            answers.add(send(credentials.getValue(), "GET", "/v1/jobs?idempotency_key=" + job.path("idempotency_key")
                    .asText(), null, null));

            // then every answer is 401 with a Bearer challenge, and nothing was written
            for (RawHttp.Response answer : answers) {
                assertEquals(401, answer.status(), credentials.getKey() + ": " + answer);
                String challenge = answer.header("WWW-Authenticate");
                assertTrue(challenge != null && challenge.startsWith("Bearer"), credentials.getKey() + ": " + answer);
                assertEquals(ApiDocument.PROBLEM_BASE + "unauthorized", Json.parse(answer.text()).path("type")
                        .asText(), credentials.getKey());
            }
            assertEquals(0, count("SELECT count(*) FROM jobs WHERE idempotency_key = ?", key), credentials.getKey());
        }
        assertUntouched(jobId);
    }

    @Test
    void aControlCharacterInAHeaderValueIs400BeforeAnyRouteNotTrimmedAway() {
        // given a job of alice's; only spaces and tabs are padding around a header value (RFC 9110 5.5)
        JsonNode job = created(IngestFixture.ALICE, "victim-" + UUID.randomUUID());
        String jobId = job.path("id").asText();
        String alice = IngestFixture.ALICE;
        String key = "k-" + UUID.randomUUID();
        record Case(String what, String method, String operationPath, RawHttp.Response answer) {
        }

        // when a header value carries a control character: the JDK server used to trim 'Bearer <token>\u000b' to a
        // valid token, and store 'Idempotency-Key: k\u0001' as 'k'
        List<Case> cases = List.of(
                new Case("a vertical tab after the token", "GET", "/v1/jobs/{id}", send(List.of("Bearer " + alice
                        + "\u000b"), "GET", "/v1/jobs/" + jobId, null, null)),
                new Case("a control character before the token", "POST", "/v1/jobs/{id}/cancel",
                        send(List.of("Bearer \u0001" + alice), "POST", "/v1/jobs/" + jobId + "/cancel", null, null)),
                new Case("a control character after the key", "POST", "/v1/jobs", send(List.of("Bearer " + alice),
                        "POST", "/v1/jobs", key + "\u0001", IngestFixture.request("x"))));

        // then each is a 400 bad-request problem the document lists, and nothing was written
        for (Case c : cases) {
            assertEquals(400, c.answer().status(), c.what() + ": " + c.answer());
            JsonNode problem = Json.parse(c.answer().text());
            assertEquals(ApiDocument.PROBLEM_BASE + "bad-request", problem.path("type").asText(), c.what());
            assertTrue(problem.path("detail").asText().contains("control character")
                    || problem.path("detail").asText().contains("Illegal character"), c.what() + ": " + c.answer());
            assertEquals(List.of(), rules.violations(c.method(), c.operationPath(), c.answer()), c.what());
        }
        assertEquals(0, count("SELECT count(*) FROM jobs WHERE idempotency_key LIKE ?", key + "%"));
        assertUntouched(jobId);
    }

    @Test
    void tokensMatchOnlyTheExactTokenNotOneDifferingInItsLastCharacter() throws IOException {
        // given a tokens file where the token the test presents is the last of several entries
        Path file = dir.resolve("tokens.yaml");
        StringBuilder yaml = new StringBuilder("tokens:\n");
        for (String token : List.of("first-token-0123456789", "second-token-0123456789", IngestFixture.ALICE)) {
            yaml.append("  - owner: o-").append(token).append("\n    roles: [submit]\n    sha256: ")
                    .append(Tokens.sha256Hex(token)).append('\n');
        }
        Files.writeString(file, yaml);
        Tokens tokens = Tokens.load(file);
        String alice = IngestFixture.ALICE;
        String lastChanged = alice.substring(0, alice.length() - 1) + (char) (alice.charAt(alice.length() - 1) + 1);

        // then the exact token matches, whatever its place, and the near misses do not
        assertEquals("o-" + alice, tokens.authenticate(alice).orElseThrow().ownerId());
        assertEquals("o-first-token-0123456789", tokens.authenticate("first-token-0123456789").orElseThrow().ownerId());
        for (String nearMiss : List.of(lastChanged, alice + " ", " " + alice, alice.substring(1), alice + "\u0000")) {
            assertTrue(tokens.authenticate(nearMiss).isEmpty(), "'" + nearMiss + "' must not match");
        }
        // and over HTTP the same near miss is a 401
        RawHttp.Response answer = send(List.of("Bearer " + lastChanged), "GET", "/v1/certifications", null, null);
        assertEquals(401, answer.status(), answer.toString());
    }

    @Test
    void anotherOwnersJobIs404ExactlyLikeAMissingOne() {
        // given alice's job and its key
        String key = "private-" + UUID.randomUUID();
        String jobId = created(IngestFixture.ALICE, key).path("id").asText();
        String missing = UUID.randomUUID().toString();
        byte[] huge = FuzzText.pad("{}".getBytes(StandardCharsets.UTF_8), ApiFuzzer.BODY_LIMIT + 1);

        for (String intruder : List.of(IngestFixture.BOB, IngestFixture.BOSS)) {
            // when bob (and the boss, who also operates) reach for it: by id (bob only: an operator reads every
            // owner's jobs), by key, to cancel, to press the button with a valid, a malformed and an over-limit body;
            // and for a job that does not exist
            List<String[]> requests = new ArrayList<>();
            if (intruder.equals(IngestFixture.BOB)) {
                requests.add(new String[] {"GET", "", null});
                requests.add(new String[] {"GET", "/events", null});
            }
            requests.addAll(List.of(new String[] {"POST", "/cancel", null},
                    new String[] {"POST", "/attempts", "{\"provider\":\"backup\"}"},
                    new String[] {"POST", "/attempts", "{not json"},
                    new String[] {"POST", "/attempts", new String(huge, StandardCharsets.UTF_8)}));
            for (String[] request : requests) {
                RawHttp.Response theirs = send(List.of("Bearer " + intruder), request[0],
                        "/v1/jobs/" + jobId + request[1], null, request[2]);
                RawHttp.Response none = send(List.of("Bearer " + intruder), request[0],
                        "/v1/jobs/" + missing + request[1], null, request[2]);

                // then both answers are the same 404, but for the id in the instance
                assertSame404(theirs, none, jobId, missing, request[0], "/v1/jobs/{id}" + request[1]);
            }
            RawHttp.Response byKey = send(List.of("Bearer " + intruder), "GET", "/v1/jobs?idempotency_key="
                    + FuzzText.encode(key), null, null);
            RawHttp.Response noKey = send(List.of("Bearer " + intruder), "GET", "/v1/jobs?idempotency_key="
                    + FuzzText.encode("unused-" + UUID.randomUUID()), null, null);
            assertSame404(byKey, noKey, "", "", "GET", "/v1/jobs");
        }
        // and the operator reads it, without touching it
        RawHttp.Response read = send(List.of("Bearer " + IngestFixture.BOSS), "GET", "/v1/jobs/" + jobId, null, null);
        assertEquals(200, read.status(), read.toString());
        assertUntouched(jobId);
    }

    private void assertSame404(RawHttp.Response theirs, RawHttp.Response none, String id, String missing,
                               String method, String path) {
        String what = method + " " + path;
        assertEquals(404, theirs.status(), what + ": " + theirs);
        assertEquals(List.of(), rules.violations(method, path, theirs), what);
        assertEquals(withoutDate(none.headers()), withoutDate(theirs.headers()), what);
        assertEquals(Json.parse(none.text().replace(missing, id)), Json.parse(theirs.text()), what);
    }

    @Test
    void submittersCannotResolveAttemptsOrCertifyAndOperatorsCannotSubmit() {
        // given alice's job, with its attempt started, and the certifications as they are
        JsonNode job = created(IngestFixture.ALICE, "roles-" + UUID.randomUUID());
        String jobId = job.path("id").asText();
        String attemptId = job.path("attempts").get(0).path("id").asText();
        long certifications = count("SELECT count(*) FROM certifications");
        String opsKey = "ops-submit-" + UUID.randomUUID();

        // when each route of the server's table that needs a role is called with tokens without it: the submitters
        // on the operators' routes, the operator on the submitters', aimed at alice's job and attempt
        List<RawHttp.Response> forbidden = new ArrayList<>();
        for (Route route : ingest.service.routes()) {
            List<String> lacking = switch (route.role()) {
                case SUBMIT -> List.of(IngestFixture.OPS);
                case OPERATE -> List.of(IngestFixture.ALICE, IngestFixture.BOB);
                default -> List.of();
            };
            for (String token : lacking) {
                forbidden.add(call(List.of("Bearer " + token), route, jobId, attemptId, opsKey));
            }
        }
        // and an attempt that does not exist is no way round it
        forbidden.add(send(List.of("Bearer " + IngestFixture.ALICE), "POST", "/v1/attempts/" + UUID.randomUUID()
                + "/resolve", null, "{\"outcome\":\"FAILED\",\"reason\":\"I say so\"}"));

        // then every answer is 403, and nothing was written
        assertTrue(forbidden.size() > 10, "the table has routes for each role: " + forbidden.size());
        for (RawHttp.Response answer : forbidden) {
            assertEquals(403, answer.status(), answer.toString());
            assertEquals(ApiDocument.PROBLEM_BASE + "forbidden", Json.parse(answer.text()).path("type").asText());
        }
        assertEquals(certifications, count("SELECT count(*) FROM certifications"));
        assertEquals(0, count("SELECT count(*) FROM jobs WHERE idempotency_key = ?", opsKey));
        assertUntouched(jobId);
    }

    private JsonNode created(String token, String key) {
        var response = ingest.submit(token, key, IngestFixture.request("mine"));
        assertEquals(201, response.statusCode(), response.body());
        return Json.parse(response.body());
    }

    private void assertUntouched(String jobId) {
        Job job = ingest.ledger.lookups().job(UUID.fromString(jobId)).orElseThrow();
        assertEquals("QUEUED", job.status().name());
        assertEquals(1, job.version());
        assertEquals(1, ingest.ledger.lookups().attempts(job.id()).size());
        assertEquals("PENDING", ingest.ledger.lookups().attempts(job.id()).get(0).status().name());
    }

    /**
     * One route of the table called with {@code authorization}: its {@code {id}} aimed at alice's job (or attempt,
     * under /v1/attempts), with {@code key} as Idempotency-Key and a body that would do.
     */
    private RawHttp.Response call(List<String> authorization, Route route, String jobId, String attemptId,
                                  String key) {
        String target = route.template().replace("{id}", route.template().startsWith("/v1/attempts/") ? attemptId
                : jobId).replace("{model}", "fast");
        String body = switch (route.template()) {
            case "/v1/jobs" -> IngestFixture.request("x");
            case "/v1/jobs/{id}/attempts" -> "{\"provider\":\"backup\"}";
            case "/v1/attempts/{id}/resolve" -> "{\"outcome\":\"FAILED\",\"reason\":\"I say so\"}";
            case "/v1/certifications" -> "{\"all\":true}";
            default -> "{}";
        };
        return send(authorization, route.method(), target, route.method().equals("POST") ? key : null,
                route.method().equals("POST") ? body : null);
    }

    private RawHttp.Response send(List<String> authorization, String method, String target, String key, String body) {
        return ingest.sendRaw(authorization, method, target, key, body);
    }

    private static Map<String, List<String>> withoutDate(Map<String, List<String>> headers) {
        Map<String, List<String>> copy = new LinkedHashMap<>(headers);
        copy.remove("date");
        return copy;
    }

    private static long count(String sql, String... parameters) {
        try (Connection connection = TestDatabase.shared().dataSource().getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setString(i + 1, parameters[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
