package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.OperatorAction;
import dev.onejob.testing.StartGate;
import dev.onejob.testing.TopicProbe;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

class HttpIngestIT {
    private final IngestFixture ingest = IngestFixture.shared();

    private static JsonNode readYaml(String text) {
        try {
            return new ObjectMapper(
                    new YAMLFactory()).readTree(text);
        } catch (IOException e) {
            throw new AssertionError("the OpenAPI document is not valid YAML: " + e.getMessage(), e);
        }
    }

    private static JsonNode json(HttpResponse<String> response) {
        return Json.parse(response.body());
    }

    private static void assertProblem(HttpResponse<String> response, int status, String type) {
        assertEquals(status, response.statusCode(), response.body());
        assertEquals("application/problem+json", response.headers().firstValue("Content-Type").orElse(""));
        JsonNode problem = json(response);
        assertEquals("https://onejob.dev/problems/" + type, problem.path("type").asText(), response.body());
        assertEquals(status, problem.path("status").asInt());
        assertTrue(!problem.path("detail").asText().isBlank(), "a problem says why");
    }

    private List<String> commandsFor(String jobId, int expected) {
        return TopicProbe.await(ingest.bootstrap, Topics.ATTEMPT_COMMANDS.name(),
                r -> jobId.equals(TopicProbe.text(r.key())), expected, Duration.ofSeconds(20))
                .stream().map(r -> TopicProbe.text(r.value())).toList();
    }

    @Test
    void fiftyConcurrentPostsWithOneKeyMakeOneJobAndOneAttemptCommand() {
        // given 50 clients with the same key and payload
        String key = "click-" + UUID.randomUUID();
        List<Callable<HttpResponse<String>>> posts = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            posts.add(() -> ingest.submit(IngestFixture.ALICE, key, IngestFixture.request("I loved it")));
        }

        // when they post at once
        List<HttpResponse<String>> responses = StartGate.race(posts);

        // then one 201, 49 replays, all naming the same job, and exactly one command reaches attempt-commands
        Set<String> ids = new HashSet<>();
        int created = 0;
        for (HttpResponse<String> response : responses) {
            ids.add(json(response).path("id").asText());
            if (response.statusCode() == 201) {
                created++;
                assertEquals("/v1/jobs/" + json(response).path("id").asText(),
                        response.headers().firstValue("Location").orElseThrow());
            } else {
                assertEquals(200, response.statusCode(), response.body());
                assertEquals("true", response.headers().firstValue("Idempotent-Replayed").orElseThrow());
            }
        }
        assertEquals(1, created);
        assertEquals(1, ids.size());
        String jobId = ids.iterator().next();
        List<String> commands = commandsFor(jobId, 1);
        assertEquals(1, commands.size(), commands.toString());
        assertEquals(jobId, Json.parse(commands.get(0)).path("job_id").asText());
    }

    @Test
    void sameKeyWithADifferentPayloadIs409AndTheJobIsUntouched() {
        String key = "k-" + UUID.randomUUID();
        HttpResponse<String> first = ingest.submit(IngestFixture.ALICE, key, IngestFixture.request("I loved it"));
        assertEquals(201, first.statusCode(), first.body());

        HttpResponse<String> second = ingest.submit(IngestFixture.ALICE, key, IngestFixture.request("I hated it"));

        assertProblem(second, 409, "idempotency-key-reused");
        assertEquals(json(first).path("id").asText(), json(second).path("job_id").asText());
        JsonNode job = json(ingest.send("GET", "/v1/jobs/" + json(first).path("id").asText(), IngestFixture.ALICE,
                Map.of(), null));
        assertEquals("I loved it", job.path("request").path("variables").path("text").asText());
        assertEquals(1, job.path("version").asInt());
    }

    @Test
    void ownersCannotSeeOrTouchEachOthersJobsAndTheSameKeyMakesTwoJobs() {
        String key = "shared-" + UUID.randomUUID();
        String aliceJob = json(ingest.submit(IngestFixture.ALICE, key, IngestFixture.request("x"))).path("id").asText();
        HttpResponse<String> bobSubmit = ingest.submit(IngestFixture.BOB, key, IngestFixture.request("x"));
        assertEquals(201, bobSubmit.statusCode());
        assertNotEquals(aliceJob, json(bobSubmit).path("id").asText());

        assertProblem(ingest.send("GET", "/v1/jobs/" + aliceJob, IngestFixture.BOB, Map.of(), null), 404, "not-found");
        assertProblem(ingest.send("POST", "/v1/jobs/" + aliceJob + "/cancel", IngestFixture.BOB, Map.of(), null),
                404, "not-found");
        assertProblem(ingest.send("POST", "/v1/jobs/" + aliceJob + "/attempts", IngestFixture.BOB, Map.of(),
                "{\"provider\":\"backup\"}"), 404, "not-found");
        assertProblem(ingest.send("GET", "/v1/jobs/" + UUID.randomUUID(), IngestFixture.BOB, Map.of(), null),
                404, "not-found");
        assertEquals("QUEUED", json(ingest.send("GET", "/v1/jobs/" + aliceJob, IngestFixture.ALICE, Map.of(), null))
                .path("status").asText());
        JsonNode bobsByKey = json(ingest.send("GET", "/v1/jobs?idempotency_key=" + key, IngestFixture.BOB, Map.of(),
                null));
        assertEquals(json(bobSubmit).path("id").asText(), bobsByKey.path("id").asText());
    }

    /** A job of alice's, submitted over HTTP with a key starting {@code keyPrefix}, and its first attempt. */
    private record Started(UUID id, UUID firstAttempt) {
    }

    /** Submits a job and starts its first attempt as a worker would (STARTING, a 10 s soft timeout). */
    private Started jobWithAStartedAttempt(String keyPrefix) {
        JsonNode job = json(ingest.submit(IngestFixture.ALICE, keyPrefix + UUID.randomUUID(),
                IngestFixture.request("x")));
        UUID first = UUID.fromString(job.path("attempts").get(0).path("id").asText());
        ingest.ledger.starts().start(first, Duration.ofSeconds(10));
        return new Started(UUID.fromString(job.path("id").asText()), first);
    }

    @Test
    void theFallbackButtonIsRefusedWhileTheAttemptIsStartingOrUnknown() {
        // given a job whose first attempt a worker started
        Started job = jobWithAStartedAttempt("fb-");
        UUID jobId = job.id();
        UUID first = job.firstAttempt();

        // when the owner presses the fallback button while it is STARTING, then UNKNOWN: 409 naming it
        for (String state : List.of("STARTING", "UNKNOWN")) {
            if (state.equals("UNKNOWN")) {
                ingest.ledger.starts().markUnknown(first);
            }
            HttpResponse<String> pressed = ingest.send("POST", "/v1/jobs/" + jobId + "/attempts", IngestFixture.ALICE,
                    Map.of(), "{\"provider\":\"backup\"}");
            assertProblem(pressed, 409, "attempt-live");
            assertEquals(first.toString(), json(pressed).path("attempt_id").asText());
            assertEquals(state, json(pressed).path("attempt_status").asText());
        }

        // when an operator cancels it, then the button makes exactly one new attempt and one command
        HttpResponse<String> resolved = ingest.send("POST", "/v1/attempts/" + first + "/resolve", IngestFixture.OPS,
                Map.of(), "{\"outcome\":\"CANCELLED\",\"reason\":\"provider outage\"}");
        assertEquals(200, resolved.statusCode(), resolved.body());
        assertEquals("NEEDS_ACTION", json(resolved).path("job").path("status").asText());
        HttpResponse<String> pressed = ingest.send("POST", "/v1/jobs/" + jobId + "/attempts", IngestFixture.ALICE,
                Map.of(), "{\"provider\":\"backup\"}");
        assertEquals(202, pressed.statusCode(), pressed.body());
        assertEquals("backup", json(pressed).path("provider").asText());
        assertEquals(2, commandsFor(jobId.toString(), 2).size());
    }

    @Test
    void resolvingAStartingAttemptInsideItsSoftDeadlineIsRefusedAndEveryResolutionIsOnTheRecord() {
        // given an attempt a worker started a moment ago, its call still inside its 10-minute soft deadline
        JsonNode job = json(ingest.submit(IngestFixture.ALICE, "rs-" + UUID.randomUUID(), IngestFixture.request("x")));
        UUID running = UUID.fromString(job.path("attempts").get(0).path("id").asText());
        ingest.ledger.starts().start(running, Duration.ofMinutes(10));

        // when an operator resolves it FAILED or CANCELLED: refused, naming the soft deadline; nothing changed
        for (String outcome : List.of("FAILED", "CANCELLED")) {
            HttpResponse<String> early = ingest.send("POST", "/v1/attempts/" + running + "/resolve", IngestFixture.OPS,
                    Map.of(), "{\"outcome\":\"" + outcome + "\",\"reason\":\"looks stuck\"}");
            assertProblem(early, 409, "attempt-not-resolvable");
            assertEquals("STARTING", json(early).path("attempt_status").asText());
            assertTrue(json(early).path("soft_deadline").isTextual(), early.body());
        }
        assertEquals(1, ingest.ledger.lookups().attempts(UUID.fromString(job.path("id").asText())).size());
        assertEquals("STARTING", ingest.ledger.lookups().attempt(running).orElseThrow().status().name());

        // and once a call is past its soft deadline the resolution goes through, and the job shows who did it and why
        JsonNode late = json(ingest.submit(IngestFixture.ALICE, "rs-" + UUID.randomUUID(), IngestFixture.request("x")));
        UUID overdue = UUID.fromString(late.path("attempts").get(0).path("id").asText());
        // a soft deadline of 0: past as soon as the start committed (the resolve's now() is a later transaction's)
        ingest.ledger.starts().start(overdue, Duration.ZERO);
        HttpResponse<String> resolved = ingest.send("POST", "/v1/attempts/" + overdue + "/resolve", IngestFixture.OPS,
                Map.of(), "{\"outcome\":\"CANCELLED\",\"reason\":\"provider outage\"}");
        assertEquals(200, resolved.statusCode(), resolved.body());
        JsonNode shown = json(ingest.send("GET", "/v1/jobs/" + late.path("id").asText(), IngestFixture.ALICE, Map.of(),
                null));
        JsonNode actions = shown.path("operator_actions");
        assertEquals(1, actions.size(), shown.toString());
        assertEquals("resolve_cancelled", actions.get(0).path("action").asText());
        assertEquals("provider outage", actions.get(0).path("reason").asText());
        assertEquals(overdue.toString(), actions.get(0).path("attempt_id").asText());
        assertTrue(actions.get(0).path("actor").isTextual() && actions.get(0).path("at").isTextual());
    }

    @Test
    void resolvingFailedContinuesAutomaticFailoverWithExactlyOneNewCommand() {
        Started job = jobWithAStartedAttempt("rf-");
        UUID jobId = job.id();
        UUID first = job.firstAttempt();
        ingest.ledger.starts().markUnknown(first);

        HttpResponse<String> resolved = ingest.send("POST", "/v1/attempts/" + first + "/resolve", IngestFixture.OPS,
                Map.of(), "{\"outcome\":\"FAILED\",\"reason\":\"provider confirmed it never ran\"}");

        assertEquals(200, resolved.statusCode(), resolved.body());
        assertEquals("backup", json(resolved).path("next_attempt").path("provider").asText());
        List<String> commands = commandsFor(jobId.toString(), 2);
        assertEquals(2, commands.size());
        // the failover attempt is live, so the button now names it
        HttpResponse<String> pressed = ingest.send("POST", "/v1/jobs/" + jobId + "/attempts", IngestFixture.ALICE,
                Map.of(), "{\"provider\":\"backup\"}");
        assertProblem(pressed, 409, "attempt-live");
        assertEquals(json(resolved).path("next_attempt").path("id").asText(), json(pressed).path("attempt_id").asText());
        // resolving it again is refused: only STARTING or UNKNOWN attempts can be resolved
        assertProblem(ingest.send("POST", "/v1/attempts/" + first + "/resolve", IngestFixture.OPS, Map.of(),
                "{\"outcome\":\"FAILED\",\"reason\":\"again\"}"), 409, "attempt-not-resolvable");
    }

    @Test
    void badRequestsGetProblemsWithAStableTypeAndWriteNothing() {
        long jobsBefore = ingest.ledger.lookups().jobsCount();
        assertProblem(ingest.submit(IngestFixture.ALICE, null, IngestFixture.request("x")), 400, "idempotency-key-missing");
        assertProblem(ingest.submit(IngestFixture.ALICE, "k".repeat(256), IngestFixture.request("x")), 400,
                "idempotency-key-invalid");
        assertProblem(ingest.submit(IngestFixture.ALICE, "k-" + UUID.randomUUID(), "{\"contract\": "), 422,
                "malformed-json");
        assertProblem(ingest.submit(IngestFixture.ALICE, "k-" + UUID.randomUUID(),
                "{\"contract\":\"nope\",\"variables\":{},\"target\":\"primary\"}"), 422, "invalid-request");
        assertProblem(ingest.submit(IngestFixture.ALICE, "k-" + UUID.randomUUID(),
                "{\"contract\":\"sentiment\",\"variables\":{},\"target\":\"primary\"}"), 422, "invalid-request");
        assertProblem(ingest.submit(IngestFixture.ALICE, "k-" + UUID.randomUUID(),
                "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"x\"},\"target\":\"nobody\"}"), 422,
                "invalid-request");
        // nine bytes that mean a number of five million digits: refused before anything spells it out
        HttpResponse<String> absurd = ingest.submit(IngestFixture.ALICE, "k-" + UUID.randomUUID(),
                "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"x\",\"n\":1e5000000},\"target\":\"primary\"}");
        assertProblem(absurd, 422, "invalid-request");
        assertTrue(absurd.body().contains("decimal exponent of 5000000"), absurd.body());
        // last: the server closes the connection after a 413 without reading the body (the client's next request on
        // that connection would find it closed)
        assertProblem(ingest.submit(IngestFixture.ALICE, "k-" + UUID.randomUUID(),
                IngestFixture.request("x".repeat(70 * 1024))), 413, "payload-too-large");
        assertEquals(jobsBefore, ingest.ledger.lookups().jobsCount());
    }

    @Test
    void aParameterOnlyOneProtocolTakesKeepsTheJobOffProvidersOfTheOther() {
        // given a passthrough job with OpenAI's seed, targeting primary (openai-chat)
        String seeded = "{\"contract\":\"passthrough\",\"target\":\"primary\",%s\"variables\":{\"messages\":"
                + "[{\"role\":\"user\",\"content\":\"x\"}],\"seed\":7}}";
        long jobsBefore = ingest.ledger.lookups().jobsCount();

        // when its fallback is backup (anthropic-messages), then 422 naming the parameter and the provider
        HttpResponse<String> refused = ingest.submit(IngestFixture.ALICE, "seed-" + UUID.randomUUID(),
                seeded.formatted("\"fallbacks\":[\"backup\"],"));
        assertProblem(refused, 422, "invalid-request");
        assertTrue(refused.body().contains("seed") && refused.body().contains("'backup'"), refused.body());
        assertEquals(jobsBefore, ingest.ledger.lookups().jobsCount());

        // and without that fallback it is a job, the seed part of its request
        HttpResponse<String> accepted = ingest.submit(IngestFixture.ALICE, "seed-" + UUID.randomUUID(),
                seeded.formatted(""));
        assertEquals(201, accepted.statusCode(), accepted.body());
        assertEquals(7, json(accepted).path("request").path("variables").path("seed").asInt(), accepted.body());
    }

    @Test
    void callersWithoutAValidTokenOrRoleAreTurnedAway() {
        assertProblem(ingest.submit(null, "k-" + UUID.randomUUID(), IngestFixture.request("x")), 401, "unauthorized");
        assertProblem(ingest.submit("wrong-token", "k-" + UUID.randomUUID(), IngestFixture.request("x")), 401,
                "unauthorized");
        assertProblem(ingest.submit(IngestFixture.OPS, "k-" + UUID.randomUUID(), IngestFixture.request("x")), 403,
                "forbidden");
        assertProblem(ingest.send("POST", "/v1/attempts/" + UUID.randomUUID() + "/resolve", IngestFixture.ALICE,
                Map.of(), "{\"outcome\":\"FAILED\",\"reason\":\"x\"}"), 403, "forbidden");
    }

    @Test
    void theServiceDescribesItselfReportsHealthAndCountsOutcomes() {
        HttpResponse<String> openApi = ingest.send("GET", "/openapi.yaml", null, Map.of(), null);
        assertEquals(200, openApi.statusCode());
        JsonNode document = readYaml(openApi.body());
        for (String path : List.of("/v1/jobs", "/v1/jobs/{id}", "/v1/jobs/{id}/attempts", "/v1/jobs/{id}/cancel",
                "/v1/attempts/{id}/resolve", "/v1/certifications", "/health", "/metrics", "/openapi.yaml")) {
            assertTrue(document.path("paths").has(path), "the OpenAPI document describes " + path);
        }
        HttpResponse<String> health = ingest.send("GET", "/health", null, Map.of(), null);
        assertEquals(200, health.statusCode(), health.body());
        ingest.submit(IngestFixture.ALICE, "m-" + UUID.randomUUID(), IngestFixture.request("x"));
        // and /metrics answers an operator, not a submitter or an anonymous caller
        assertEquals(401, ingest.send("GET", "/metrics", null, Map.of(), null).statusCode());
        assertEquals(403, ingest.send("GET", "/metrics", IngestFixture.ALICE, Map.of(), null).statusCode());
        String metrics = ingest.send("GET", "/metrics", IngestFixture.OPS, Map.of(), null).body();
        assertTrue(metrics.contains("onejob_jobs_submitted_total{channel=\"http\",outcome=\"created\"}"), metrics);
    }

    @Test
    void theFallbackButtonToAnUncertifiedProviderIs422UnlessAnOperatorOverrides() {
        // given a job whose target is backup and whose fallback, primary, has no certification for its contract
        String body = "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"x\"},\"target\":\"backup\","
                + "\"fallbacks\":[\"primary\"]}";
        for (String token : List.of(IngestFixture.ALICE, IngestFixture.BOSS)) {
            JsonNode job = json(ingest.submit(token, "cert-" + UUID.randomUUID(), body));
            UUID first = UUID.fromString(job.path("attempts").get(0).path("id").asText());
            ingest.ledger.starts().start(first, Duration.ofSeconds(10));
            ingest.ledger.starts().markUnknown(first);
            ingest.ledger.interventions().resolveCancelled(first,
                    OperatorAction.of("test", OperatorAction.RESOLVE_CANCELLED, "test: make room for the button"));
            String path = "/v1/jobs/" + job.path("id").asText() + "/attempts";

            // when the owner presses the button for primary, then 422 with the reason, and no attempt
            HttpResponse<String> refused = ingest.send("POST", path, token, Map.of(), "{\"provider\":\"primary\"}");
            assertProblem(refused, 422, "provider-not-certified");
            assertTrue(json(refused).path("detail").asText().contains("no passing certification"), refused.body());

            HttpResponse<String> overridden = ingest.send("POST", path, token, Map.of(),
                    "{\"provider\":\"primary\",\"certification_override\":\"primary verified by hand\"}");
            if (token.equals(IngestFixture.ALICE)) {
                // a submitter may not override
                assertProblem(overridden, 403, "forbidden");
            } else {
                // an operator may, and the override is recorded on the attempt
                assertEquals(202, overridden.statusCode(), overridden.body());
                assertEquals("boss: primary verified by hand", json(overridden).path("certification_override").asText());
            }
        }
    }

    @Test
    void theJobShowsWhetherItsTargetIsCertified() {
        JsonNode job = json(ingest.submit(IngestFixture.ALICE, "tc-" + UUID.randomUUID(), IngestFixture.request("x")));
        JsonNode view = json(ingest.send("GET", "/v1/jobs/" + job.path("id").asText(), IngestFixture.ALICE, Map.of(), null));
        assertEquals(false, view.path("target_certification").path("certified").asBoolean(true));
        assertTrue(view.path("target_certification").path("reason").asText().contains("primary"));
    }
}
