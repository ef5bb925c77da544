package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.OperatorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What fuzzing the HTTP API found (fixed in f5de4e8), pinned as the exact requests and the answers the document
 * (or RFC 9110) asks for, so a seed that no longer happens to hit them cannot let them back in: U+0000 in every
 * string that reaches PostgreSQL, an unpaired surrogate, an over-limit certification request, an encoded slash
 * in an id, a 405 without Allow, and metric series made from invented methods.
 */
class ApiFuzzFindingsIT {
    private final IngestFixture ingest = IngestFixture.shared();
    private final ApiDocument document = ApiDocument.load();
    private final ApiAnswerRules rules = new ApiAnswerRules(document);

    /** U+0000, as JSON writes it: PostgreSQL stores it neither in text nor in jsonb. */
    private static final String NUL = "\\u0000";

    @Test
    void nulInAStringThatReachesPostgresqlIsRefusedNot500() {
        // given a job, an attempt an operator may resolve, and a job waiting for its owner's fallback button
        String run = "nul-" + UUID.randomUUID();
        String key = run + "-submit";
        JsonNode started = created(IngestFixture.ALICE, run + "-started", IngestFixture.request("x"));
        UUID startedAttempt = firstAttempt(started);
        ingest.ledger.starts().start(startedAttempt, Duration.ofMinutes(10));
        JsonNode waiting = created(IngestFixture.BOSS, run + "-waiting", "{\"contract\":\"sentiment\","
                + "\"variables\":{\"text\":\"x\"},\"target\":\"backup\",\"fallbacks\":[\"primary\"]}");
        ingest.ledger.starts().start(firstAttempt(waiting), Duration.ofMinutes(10));
        ingest.ledger.starts().markUnknown(firstAttempt(waiting));
        ingest.ledger.interventions().resolveCancelled(firstAttempt(waiting),
                OperatorAction.of("test", OperatorAction.RESOLVE_CANCELLED, "make room for the fallback button"));
        List<String> failures = new ArrayList<>();

        // when U+0000 is sent in every string the service hands to PostgreSQL
        expectRefused(failures, "GET", "/v1/jobs", IngestFixture.ALICE,
                "/v1/jobs?idempotency_key=k%00", null, null);
        expectRefused(failures, "POST", "/v1/jobs", IngestFixture.ALICE, "/v1/jobs", key,
                IngestFixture.request("a" + NUL + "b"));
        for (String outcome : List.of("CANCELLED", "FAILED")) {
            expectRefused(failures, "POST", "/v1/attempts/{id}/resolve", IngestFixture.OPS,
                    "/v1/attempts/" + startedAttempt + "/resolve", null,
                    "{\"outcome\":\"" + outcome + "\",\"reason\":\"outage" + NUL + "\"}");
        }
        expectRefused(failures, "POST", "/v1/jobs/{id}/attempts", IngestFixture.BOSS,
                "/v1/jobs/" + waiting.path("id").asText() + "/attempts", null,
                "{\"provider\":\"primary\",\"certification_override\":\"checked" + NUL + "\"}");

        // then each is a documented refusal, and nothing changed
        assertEquals(List.of(), failures);
        assertTrue(ingest.ledger.lookups().jobForKey("alice", key).isEmpty());
        assertEquals("STARTING", ingest.ledger.lookups().attempt(startedAttempt).orElseThrow().status().name());
        assertEquals(1, ingest.ledger.lookups().attempts(UUID.fromString(waiting.path("id").asText())).size());
    }

    private void expectRefused(List<String> failures, String method, String path, String token, String target,
                               String key, String body) {
        RawHttp.Response answer = send(token, method, target, key, body);
        List<String> wrong = new ArrayList<>(rules.violations(method, path, answer));
        if (answer.status() < 400 || answer.status() >= 500) {
            wrong.add("expected a 4xx refusal");
        }
        if (!wrong.isEmpty()) {
            failures.add(method + " " + target + " " + (body == null ? "" : body) + " -> " + answer + " " + wrong);
        }
    }

    @Test
    void aLoneSurrogateIsRefusedOrStoredExactlyAsSent() {
        // given a request whose text is "a", an unpaired high surrogate, "b" (not a Unicode scalar value)
        String key = "surrogate-" + UUID.randomUUID();
        String body = IngestFixture.request("a\\ud800b");

        RawHttp.Response answer = send(IngestFixture.ALICE, "POST", "/v1/jobs", key, body);

        // then it is refused as invalid, or the job holds exactly what was sent (today it holds "a?b")
        if (answer.status() == 201) {
            String stored = ingest.ledger.lookups().jobForKey("alice", key).orElseThrow().request().path("variables")
                    .path("text").asText();
            assertEquals("a\uD800b", stored, "the job's request is not the request as sent");
        } else {
            assertEquals(422, answer.status(), answer.toString());
            assertEquals(List.of(), rules.violations("POST", "/v1/jobs", answer));
        }
    }

    @Test
    void anOverLimitCertificationRequestGetsADocumentedStatus() {
        byte[] body = FuzzText.pad("{\"provider\":\"nope\",\"contract\":\"nope\"}".getBytes(StandardCharsets.UTF_8),
                ApiFuzzer.BODY_LIMIT + 1);

        RawHttp.Response answer = RawHttp.send(ingest.service.httpPort(), "POST", "/v1/certifications",
                List.of(FuzzAuth.authorization("Bearer " + IngestFixture.OPS)), body, true);

        // the server answers 413, which openapi.yaml once documented for every body-reading operation but this one
        assertEquals(List.of(), rules.violations("POST", "/v1/certifications", answer), answer.toString());
    }

    @Test
    void anEncodedSlashInAnIdIsPartOfTheIdNotAPathSeparator() {
        // given alice's job
        JsonNode job = created(IngestFixture.ALICE, "slash-" + UUID.randomUUID(), IngestFixture.request("x"));
        String id = job.path("id").asText();

        // when the id segment carries an encoded slash: ids "<job>/cancel" and "x/attempts"
        RawHttp.Response post = send(IngestFixture.ALICE, "POST", "/v1/jobs/" + id + "%2Fcancel", null, null);
        RawHttp.Response get = send(IngestFixture.ALICE, "GET", "/v1/jobs/x%2Fattempts", null, null);

        // then POST /v1/jobs/{id} is a method the path does not have, GET finds no such job, and the job lives on
        assertEquals(List.of(), rules.violations("POST", "/v1/jobs/{id}", post), post.toString());
        assertEquals(List.of(), rules.violations("GET", "/v1/jobs/{id}", get), get.toString());
        assertEquals("QUEUED", ingest.ledger.lookups().job(UUID.fromString(id)).orElseThrow().status().name());
    }

    @Test
    void a405NamesTheMethodsThePathAllows() {
        String job = "/v1/jobs/" + created(IngestFixture.ALICE, "allow-" + UUID.randomUUID(),
                IngestFixture.request("x")).path("id").asText();
        for (String[] request : List.of(new String[] {"DELETE", job, "/v1/jobs/{id}"},
                new String[] {"PUT", "/v1/jobs", "/v1/jobs"}, new String[] {"POST", "/health", "/health"})) {
            RawHttp.Response answer = send(IngestFixture.ALICE, request[0], request[1], null, null);

            // RFC 9110 15.5.6: the origin server MUST generate an Allow header field in a 405 response
            assertEquals(405, answer.status(), answer.toString());
            String allow = answer.header("Allow");
            assertTrue(allow != null, request[0] + " " + request[1] + " answered 405 without Allow: " + answer);
            assertEquals(document.methodsOf(request[2]), new LinkedHashSet<>(List.of(allow.split("\\s*,\\s*"))));
        }
    }

    @Test
    void methodsNobodyDefinedDoNotGrowTheMetrics() {
        // given methods no one defines, sent to a path that needs no token
        Random random = new Random(7);
        Set<String> invented = new LinkedHashSet<>();
        for (int i = 0; i < 20; i++) {
            invented.add("ZQ" + Long.toString(Math.abs(random.nextLong()), 36).toUpperCase());
        }
        invented.forEach(method -> RawHttp.send(ingest.service.httpPort(), method, "/health", List.of(), null,
                false));

        // then /metrics has no series per invented method: an anonymous caller could add them without end
        String metrics = RawHttp.send(ingest.service.httpPort(), "GET", "/metrics",
                List.of(new RawHttp.Header("Authorization", "Bearer " + IngestFixture.OPS)), null, false).text();
        List<String> grown = invented.stream().filter(metrics::contains).toList();
        assertEquals(List.of(), grown, "metric series labelled with invented methods");
    }

    private JsonNode created(String token, String key, String body) {
        RawHttp.Response answer = send(token, "POST", "/v1/jobs", key, body);
        assertEquals(201, answer.status(), answer.toString());
        return Json.parse(answer.text());
    }

    private static UUID firstAttempt(JsonNode job) {
        return UUID.fromString(job.path("attempts").get(0).path("id").asText());
    }

    private RawHttp.Response send(String token, String method, String target, String key, String body) {
        return ingest.sendRaw(List.of("Bearer " + token), method, target, key, body);
    }
}
