package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes every operation {@code openapi.yaml} documents with a few hundred hostile requests from a seeded
 * {@link Random} (printed; {@code -Dfuzz.seed=N} replays a run, {@code -Dfuzz.perOperation=N} sizes it) and
 * judges every answer by the document alone ({@link ApiAnswerRules}); then checks that the service is healthy and
 * the ledger holds no partial rows. The boundaries the fuzz may or may not hit in a given run are pinned below.
 */
class ApiFuzzIT {
    private static final long DEFAULT_SEED = 20_261_202L;
    private final IngestFixture ingest = IngestFixture.shared();
    private final ApiDocument document = ApiDocument.load();
    private final ApiAnswerRules rules = new ApiAnswerRules(document);

    @Test
    void everyAnswerToHostileRequestsIsDocumentedAndTheLedgerHoldsNoPartialRows() {
        long seed = Long.getLong("fuzz.seed", DEFAULT_SEED);
        int perOperation = Integer.getInteger("fuzz.perOperation", 32);
        System.out.println("ApiFuzzIT seed=" + seed + " (replay with -Dfuzz.seed=" + seed + ")");
        // given real jobs and attempts to aim at
        String run = "fuzz-" + seed + "-" + UUID.randomUUID().toString().substring(0, 8);
        ApiFuzzer fuzzer = new ApiFuzzer(document, FuzzTargets.create(ingest, run), new Random(seed), run);
        List<String> findings = new ArrayList<>();
        Map<String, Map<Integer, Integer>> statuses = new TreeMap<>();

        // when every operation gets its share, round by round so operations interleave
        int sent = 0;
        for (int round = 0; round < perOperation; round++) {
            // operations with a body have more to fuzz: they get two requests a round
            for (ApiDocument.Operation operation : twiceIfTheyTakeABody(document.operations())) {
                ApiFuzzer.Request request = fuzzer.next(operation);
                RawHttp.Response response = RawHttp.send(ingest.service.httpPort(), request.method(),
                        request.target(), request.headers(), request.body(), request.contentLength());
                sent++;
                statuses.computeIfAbsent(operation.name(), k -> new TreeMap<>())
                        .merge(response.status(), 1, Integer::sum);
                List<String> wrong = judge(request, response);
                if (!wrong.isEmpty()) {
                    findings.add(request.describe() + "\n      -> " + response + "\n      " + wrong);
                }
            }
        }

        // then every answer kept the document, the ledger matches the answers, and nothing is half-written
        System.out.println("ApiFuzzIT sent " + sent + " requests (" + fuzzer.submissions().size()
                + " tracked submissions), statuses per operation: " + statuses);
        findings.addAll(fuzzer.submissions().ledgerViolations(ingest.ledger));
        assertTrue(findings.isEmpty(), findings.size() + " findings with seed " + seed + ":\n"
                + String.join("\n", findings.subList(0, Math.min(40, findings.size()))));
        assertServiceIsHealthyAndTheLedgerWhole();
    }

    private static List<ApiDocument.Operation> twiceIfTheyTakeABody(List<ApiDocument.Operation> operations) {
        List<ApiDocument.Operation> round = new ArrayList<>(operations);
        operations.stream().filter(o -> o.requestBody() != null).forEach(round::add);
        return round;
    }

    private List<String> judge(ApiFuzzer.Request request, RawHttp.Response response) {
        List<String> wrong = new ArrayList<>(rules.violations(request.method(), request.path(), response));
        if (request.expected() != null && request.expected() != response.status()) {
            wrong.add("expected " + request.expected());
        }
        if (response.status() == 401 && response.header("WWW-Authenticate") == null) {
            wrong.add("a 401 without WWW-Authenticate");
        }
        if (request.tracked() != null) {
            wrong.addAll(request.tracked().answered(response));
        }
        return wrong;
    }

    @Test
    void theRulesRejectEveryKindOfAnswerTheDocumentDoesNotAllow() {
        // a fuzz that cannot fail proves nothing: each of these answers must be caught
        Map<String, RawHttp.Response> forbidden = Map.of(
                "a 500", answer(500, "application/problem+json", problem(500, "internal")),
                "an undocumented status", answer(418, "application/problem+json", problem(418, "not-found")),
                "an HTML error", answer(404, "text/html", "<h1>404 Not Found</h1>"),
                "an undocumented type", answer(404, "application/problem+json", problem(404, "no-such-job")),
                "a type with another status than documented", answer(404, "application/problem+json",
                        problem(404, "forbidden")),
                "a problem without detail", answer(404, "application/problem+json",
                        "{\"type\":\"" + ApiDocument.PROBLEM_BASE + "not-found\",\"title\":\"t\",\"status\":404}"),
                "a stack trace", answer(404, "application/problem+json", problem(404, "not-found")
                        .replace("\"detail\":\"d\"", "\"detail\":\"java.lang.IllegalStateException\\n\\tat "
                                + "dev.onejob.core.ledger.LedgerStore.job(LedgerStore.java:1)\"")),
                "a job without its fields", answer(200, "application/json", "{\"id\":\"" + UUID.randomUUID() + "\"}"));
        for (Map.Entry<String, RawHttp.Response> wrong : forbidden.entrySet()) {
            assertTrue(!rules.violations("GET", "/v1/jobs/{id}", wrong.getValue()).isEmpty(), wrong.getKey());
        }
        assertEquals(List.of(), rules.violations("GET", "/v1/jobs/{id}",
                answer(404, "application/problem+json", problem(404, "not-found"))));
        // a method the path lacks: 405, 401 first on a secured path, or what the server refuses before any operation
        assertEquals(Set.of(400, 401, 405, 408, 414, 431), rules.allowed("DELETE", "/v1/jobs/{id}"));
        assertEquals(Set.of(400, 405, 408, 414, 431), rules.allowed("DELETE", "/health/live"));
    }

    @Test
    void theLedgerCountsSeeHalfWrittenRows() throws SQLException {
        // given, in a transaction that is rolled back: a job without attempts, and a job whose only attempt is a
        // PENDING number 2 without its command
        try (Connection connection = TestDatabase.shared().dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                UUID bare = UUID.randomUUID();
                UUID gap = UUID.randomUUID();
                for (UUID job : List.of(bare, gap)) {
                    statement.execute("INSERT INTO jobs (id, owner_id, idempotency_key, request_fingerprint, request, "
                            + "contract, target_provider) VALUES ('" + job + "', 'alice', 'half-" + job + "', '"
                            + "0".repeat(64) + "', '{}', 'sentiment', 'primary')");
                }
                statement.execute("INSERT INTO attempts (id, job_id, number, provider, job_version) VALUES ('"
                        + UUID.randomUUID() + "', '" + gap + "', 2, 'primary', 1)");

                // then every count but the live-attempt one sees them
                Map<String, Long> broken = LedgerInvariants.count(connection);
                assertEquals(List.of(1L, 1L, 1L, 0L), List.copyOf(broken.values()), broken.toString());
            } finally {
                connection.rollback();
            }
        }
    }

    private static RawHttp.Response answer(int status, String contentType, String body) {
        return new RawHttp.Response(status, Map.of("content-type", List.of(contentType)),
                body.getBytes(StandardCharsets.UTF_8), null);
    }

    private static String problem(int status, String type) {
        return "{\"type\":\"" + ApiDocument.PROBLEM_BASE + type + "\",\"title\":\"t\",\"status\":" + status
                + ",\"detail\":\"d\"}";
    }

    @Test
    void anIdempotencyKeyOf255PrintableCharactersWorksAnd256IsRefused() {
        HostileValues values = new HostileValues(new Random(Long.getLong("fuzz.seed", DEFAULT_SEED) ^ 255));
        String longest = values.printableAscii(255);
        String tooLong = values.printableAscii(256);

        byte[] body = IngestFixture.request("longest key").getBytes(StandardCharsets.UTF_8);

        RawHttp.Response created = submit(longest, body);
        RawHttp.Response refused = submit(tooLong, body);

        assertEquals(201, created.status(), created.toString());
        RawHttp.Response found = get("/v1/jobs?idempotency_key=" + FuzzText.encode(longest));
        assertEquals(200, found.status(), found.toString());
        assertEquals(Json.parse(created.text()).path("id"), Json.parse(found.text()).path("id"));
        assertEquals(longest, Json.parse(found.text()).path("idempotency_key").asText());
        assertProblem(refused, 400, "idempotency-key-invalid");
        assertTrue(ingest.ledger.lookups().jobForKey("alice", tooLong).isEmpty());
    }

    @Test
    void aBodyOfExactlyTheLimitIsReadAndOneByteMoreIs413WithNothingWritten() {
        byte[] request = IngestFixture.request("padded").getBytes(StandardCharsets.UTF_8);
        String atLimit = "limit-" + UUID.randomUUID();
        String overLimit = "over-" + UUID.randomUUID();

        RawHttp.Response read = submit(atLimit, FuzzText.pad(request, ApiFuzzer.BODY_LIMIT));
        RawHttp.Response tooLarge = submit(overLimit, FuzzText.pad(request, ApiFuzzer.BODY_LIMIT + 1));
        RawHttp.Response huge = submit(overLimit, FuzzText.pad(request, 100 * 1024));

        assertEquals(201, read.status(), read.toString());
        assertProblem(tooLarge, 413, "payload-too-large");
        assertProblem(huge, 413, "payload-too-large");
        assertTrue(ingest.ledger.lookups().jobForKey("alice", overLimit).isEmpty());
    }

    @Test
    void nestingTenThousandDeepIs422AndNothingIsWritten() {
        for (String deep : List.of(HostileValues.DEEP_ARRAY, HostileValues.DEEP_OBJECT)) {
            String key = "deep-" + UUID.randomUUID();
            String body = "{\"contract\":\"sentiment\",\"variables\":{\"text\":" + deep + "},\"target\":\"primary\"}";

            RawHttp.Response response = submit(key, body.getBytes(StandardCharsets.UTF_8));

            assertProblem(response, 422, "malformed-json");
            assertTrue(ingest.ledger.lookups().jobForKey("alice", key).isEmpty());
        }
    }

    @Test
    void sqlFragmentsInKeysAndTextAreStoredAsDataAndRunNothing() {
        String key = HostileValues.SQL + UUID.randomUUID();
        String body = IngestFixture.request(HostileValues.SQL.replace("\"", "\\\"") + " \\\" OR 1=1 --");

        RawHttp.Response created = submit(key, body.getBytes(StandardCharsets.UTF_8));

        assertEquals(201, created.status(), created.toString());
        JsonNode job = Json.parse(get("/v1/jobs?idempotency_key=" + FuzzText.encode(key)).text());
        assertEquals(key, job.path("idempotency_key").asText());
        assertEquals(Json.parse(body), job.path("request"));
        assertTrue(ingest.ledger.lookups().jobsCount() > 0, "the jobs table is still there");
    }

    private void assertServiceIsHealthyAndTheLedgerWhole() {
        RawHttp.Response health = RawHttp.send(ingest.service.httpPort(), "GET", "/health", List.of(), null, false);
        assertEquals(200, health.status(), health.toString());
        assertEquals(LedgerInvariants.none(), LedgerInvariants.count(TestDatabase.shared().dataSource()));
    }

    private RawHttp.Response submit(String key, byte[] body) {
        return RawHttp.send(ingest.service.httpPort(), "POST", "/v1/jobs", List.of(
                FuzzAuth.authorization("Bearer " + IngestFixture.ALICE), new RawHttp.Header("Idempotency-Key", key),
                new RawHttp.Header("Content-Type", "application/json")), body, true);
    }

    private RawHttp.Response get(String target) {
        return RawHttp.send(ingest.service.httpPort(), "GET", target,
                List.of(FuzzAuth.authorization("Bearer " + IngestFixture.ALICE)), null, false);
    }

    private void assertProblem(RawHttp.Response response, int status, String type) {
        assertEquals(status, response.status(), response.toString());
        assertEquals("application/problem+json", response.header("Content-Type"));
        assertEquals(ApiDocument.PROBLEM_BASE + type, Json.parse(response.text()).path("type").asText());
        assertTrue(rules.problemTypes().contains(ApiDocument.PROBLEM_BASE + type), type + " is documented");
    }
}
