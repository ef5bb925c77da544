package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.simulator.Behaviour;
import dev.onejob.testing.Await;
import dev.onejob.testing.TestKafka;
import dev.onejob.testing.TopicProbe;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The traffic real providers send, end to end: answers streamed for minutes, refusals that ran nothing, answers too
 * large for a small buffer, and answers that come after an operator gave up on them. Primary's soft timeout is 3 s,
 * its hard timeout 10 s, and it is retried up to three times; {@code small} is primary's simulator with a 64 KiB
 * answer bound; {@code flaky} is primary's simulator, never retried, cooling down after two refusals in a minute.
 */
class ProviderTrafficIT {
    private static final String PROVIDERS = """
            providers:
              - {id: primary, protocol: openai-chat, base_url: '${SIM_PRIMARY_URL}', model: gpt-test,
                 api_key_env: PRIMARY_API_KEY, soft_timeout: 3s, hard_timeout: 10s,
                 retry: {max_attempts: 3, initial_backoff: 200ms, max_backoff: 5s},
                 cooldown: {duration: 0s}, prices: {input: 0.15, output: 0.60}}
              - {id: flaky, protocol: openai-chat, base_url: '${SIM_PRIMARY_URL}', model: gpt-flaky,
                 api_key_env: PRIMARY_API_KEY, soft_timeout: 3s, hard_timeout: 10s, retry: {max_attempts: 1},
                 cooldown: {allowed_fails: 1, window: 1m, duration: 1m}, prices: {input: 0.15, output: 0.60}}
              - {id: backup, protocol: anthropic-messages, base_url: '${SIM_BACKUP_URL}', model: claude-test,
                 api_key_env: BACKUP_API_KEY, soft_timeout: 5s, hard_timeout: 15s, cooldown: {duration: 0s},
                 prices: {input: 3.00, output: 15.00}}
              - {id: small, protocol: openai-chat, base_url: '${SIM_PRIMARY_URL}', model: gpt-small,
                 api_key_env: PRIMARY_API_KEY, soft_timeout: 3s, hard_timeout: 10s, max_answer_bytes: 65536,
                 cooldown: {duration: 0s}, prices: {input: 0.15, output: 0.60}}
            aliases:
              primary-only: [primary]
              small-first: [small, backup]
              flaky-first: [flaky, backup]
              flaky-only: [flaky]
            """;
    private static PipelineFixture pipeline;

    @BeforeAll
    static void start() throws Exception {
        pipeline = new PipelineFixture(PROVIDERS);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @AfterEach
    void resetSimulators() {
        pipeline.stack.services().simulators().values().forEach(sim -> sim.resetBehaviours());
    }

    /** A drop-in call that does not wait: the job's id, from the 504 that names it (or the 200 of a quick one). */
    private static String call(String model, int maxTokens) {
        String body = "{\"model\":\"" + model + "\",\"max_tokens\":" + maxTokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"Tell me a long story\"}]}";
        HttpResponse<String> response = pipeline.send("POST", "/v1/chat/completions", "alice",
                Map.of("Idempotency-Key", "traffic-" + UUID.randomUUID(), "Prefer", "wait=0"), body);
        String jobId = response.headers().firstValue("onejob-job-id")
                .orElseGet(() -> Json.parse(response.body()).path("job_id").asText(null));
        assertTrue(jobId != null, response.statusCode() + " " + response.body());
        return jobId;
    }

    @Test
    void aStreamThatSpeaksEverySecondForTwoAndAHalfMinutesIsNeverUnknownAndSucceeds() {
        // given a primary that streams its answer one piece a second for 150 s (its soft timeout is 3 s)
        pipeline.simulator("primary").setDefaultBehaviour(Behaviour.paced(150, Duration.ofSeconds(1)));

        // when a call runs on it, watched every half second
        String jobId = call("primary-only", 4000);
        Set<String> seen = new HashSet<>();
        Await.until(Duration.ofSeconds(240), "job " + jobId + " to finish", () -> {
            JsonNode job = pipeline.job(jobId);
            seen.add(job.path("status").asText());
            job.path("attempts").forEach(a -> seen.add("attempt " + a.path("status").asText()));
            return job.path("status").asText().equals("SUCCEEDED") || job.path("status").asText().equals("FAILED");
        });

        // then it was never UNKNOWN, one attempt made one call, and its usage is recorded
        JsonNode job = pipeline.job(jobId);
        assertEquals("SUCCEEDED", job.path("status").asText(), job.toString());
        assertTrue(!seen.contains("UNKNOWN") && !seen.contains("attempt UNKNOWN"), seen.toString());
        JsonNode attempt = job.path("attempts").get(0);
        assertEquals(1, job.path("attempts").size());
        assertTrue(attempt.path("unknown_at").isNull(), "never made UNKNOWN, not even for a moment");
        assertTrue(Duration.between(Instant.parse(attempt.path("started_at").asText()),
                Instant.parse(attempt.path("finished_at").asText())).compareTo(Duration.ofSeconds(140)) > 0,
                "the answer took minutes");
        assertTrue(attempt.path("usage").path("output_tokens").asLong() > 0, attempt.toString());
        assertEquals(1, pipeline.simulator("primary").requestsWithIdempotencyKey(attempt.path("id").asText()));
    }

    @Test
    void twoRateLimitsAreRetriedOnTheSameProviderAfterTheBackoffTheyAskFor() {
        // given a primary without fallback that refuses the next two calls with 429 and Retry-After: 3 (its own
        // backoff would be 200 ms, then 400 ms)
        pipeline.simulator("primary").setDefaultBehaviour(Behaviour.status(429, 3), 2);

        // when a call runs
        String jobId = call("primary-only", 200);
        JsonNode job = pipeline.awaitStatus(jobId, "SUCCEEDED", Duration.ofSeconds(30));

        // then three attempts on primary, three calls, each retry started at least 3 s after the refusal
        JsonNode attempts = job.path("attempts");
        assertEquals(3, attempts.size(), attempts.toString());
        for (int i = 0; i < 3; i++) {
            JsonNode attempt = attempts.get(i);
            assertEquals("primary", attempt.path("provider").asText());
            assertEquals(i < 2 ? "FAILED" : "SUCCEEDED", attempt.path("status").asText());
            assertEquals(1, pipeline.simulator("primary").requestsWithIdempotencyKey(attempt.path("id").asText()));
            if (i > 0) {
                Instant refused = Instant.parse(attempts.get(i - 1).path("finished_at").asText());
                Instant started = Instant.parse(attempt.path("started_at").asText());
                assertTrue(Duration.between(refused, started).compareTo(Duration.ofSeconds(3)) >= 0,
                        "retry " + i + " started " + Duration.between(refused, started) + " after the 429");
                assertTrue(attempt.path("not_before").isTextual(), attempt.toString());
            }
        }
        assertEquals("http_429", attempts.get(0).path("error").path("code").asText());
        assertEquals(attempts.get(2).path("id").asText(), job.path("completed_by").asText());
    }

    @Test
    void aProviderThatKeepsRefusingCoolsDownAndNewJobsStartOnTheirCertifiedFallback() {
        // given flaky refusing its next two calls with 503, each of which fails over to backup
        pipeline.simulator("primary").setDefaultBehaviour(Behaviour.status(503), 2);
        for (int i = 0; i < 2; i++) {
            JsonNode job = pipeline.awaitStatus(call("flaky-first", 200), "SUCCEEDED", Duration.ofSeconds(30));
            assertEquals(List.of("flaky", "backup"), List.of(job.path("attempts").get(0).path("provider").asText(),
                    job.path("attempts").get(1).path("provider").asText()));
        }

        // when the ingest sees two refusals within the window (more than allowed_fails: 1)
        Await.until(Duration.ofSeconds(10), "flaky to cool down", () -> {
            for (JsonNode provider : Json.parse(pipeline.send("GET", "/v1/providers", "alice", Map.of(), null).body())
                    .path("providers")) {
                if (provider.path("id").asText().equals("flaky")) {
                    return provider.path("cooling_until").isTextual();
                }
            }
            return false;
        });
        long flakyCalls = pipeline.simulator("primary").ledger().size();
        JsonNode rerouted = pipeline.awaitStatus(call("flaky-first", 200), "SUCCEEDED", Duration.ofSeconds(30));
        JsonNode alone = pipeline.awaitStatus(call("flaky-only", 200), "SUCCEEDED", Duration.ofSeconds(30));

        // then a new job with a certified fallback starts on backup without calling flaky, one without stays
        assertEquals(1, rerouted.path("attempts").size(), rerouted.toString());
        assertEquals("backup", rerouted.path("attempts").get(0).path("provider").asText());
        assertEquals("flaky", rerouted.path("target").asText(), "the job still names its target");
        assertEquals("flaky", alone.path("attempts").get(0).path("provider").asText());
        assertEquals(flakyCalls + 1, pipeline.simulator("primary").ledger().size(), "only the job without fallback");
        assertTrue(pipeline.send("GET", "/metrics", "ops", Map.of(), null).body()
                .contains("onejob_provider_cooling{provider=\"flaky\"} 1.0"), "the cooling gauge says so");
    }

    @Test
    void anAnswerOfSixHundredKibibytesIsStoredAndReturned() {
        // given a primary whose answer is 600 KiB of text
        pipeline.simulator("primary").setDefaultBehaviour(Behaviour.largeAnswer(600 * 1024));

        // when a call that allows it runs
        String jobId = call("primary-only", 200_000);
        JsonNode job = pipeline.awaitStatus(jobId, "SUCCEEDED", Duration.ofSeconds(60));

        // then the whole answer is the job's result, and the same key returns it
        String text = job.path("result").path("text").asText();
        assertTrue(text.length() >= 600 * 1024 - 1024, "stored " + text.length() + " characters");
        List<JsonNode> results = TopicProbe.await(TestKafka.shared().bootstrapServers(), Topics.JOB_RESULTS.name(),
                r -> jobId.equals(TopicProbe.text(r.key())), 1, Duration.ofSeconds(30)).stream()
                .map(r -> Json.parse(TopicProbe.text(r.value()))).toList();
        assertEquals("SUCCEEDED", results.get(0).path("status").asText(), "job-results carried it");
    }

    @Test
    void anAnswerOverEveryBoundIsOnePaidCallAndFailsWithoutFailover() {
        // given small (a 64 KiB bound), whose answer is 200 KiB, and a backup it could fail over to
        pipeline.simulator("primary").setDefaultBehaviour(Behaviour.largeAnswer(200 * 1024));
        int backupCalls = pipeline.simulator("backup").ledger().size();

        // when a call allowing 1,000 tokens (at most 16,000 bytes) runs on small
        String jobId = call("small-first", 1000);
        JsonNode job = pipeline.awaitStatus(jobId, "FAILED", Duration.ofSeconds(60));

        // then one attempt, answer_too_large, its usage and cost recorded, and the backup never called
        assertEquals(1, job.path("attempts").size(), job.toString());
        JsonNode attempt = job.path("attempts").get(0);
        assertEquals("answer_too_large", attempt.path("error").path("code").asText(), attempt.toString());
        assertEquals("answer_too_large", job.path("error").path("code").asText(), job.toString());
        assertTrue(attempt.path("usage").path("output_tokens").asLong() > 10_000, attempt.toString());
        assertTrue(attempt.path("cost_usd").isTextual(), attempt.toString());
        assertEquals(backupCalls, pipeline.simulator("backup").ledger().size(), "no second paid call");
    }

    @Test
    void anAnswerThatArrivesAfterAnOperatorResolvedItFailedIsBilledAndAuditedAndNeverWins() {
        // given a primary that answers after 7 s (soft timeout 3 s, hard 10 s), a backup that answers at once
        pipeline.simulator("primary").setDefaultBehaviour(Behaviour.hangThenAnswer(Duration.ofSeconds(7)));
        String key = "late-" + UUID.randomUUID();
        HttpResponse<String> created = pipeline.send("POST", "/v1/jobs", "alice", Map.of("Idempotency-Key", key),
                "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"I loved it\"},\"target\":\"primary\","
                        + "\"fallbacks\":[\"backup\"]}");
        assertEquals(201, created.statusCode(), created.body());
        String jobId = Json.parse(created.body()).path("id").asText();

        // when the attempt is UNKNOWN, an operator resolves it FAILED, and the job fails over and succeeds
        JsonNode unknown = pipeline.awaitStatus(jobId, "UNKNOWN", Duration.ofSeconds(20));
        String attemptA = unknown.path("attempts").get(0).path("id").asText();
        HttpResponse<String> resolved = pipeline.send("POST", "/v1/attempts/" + attemptA + "/resolve", "ops",
                Map.of(), "{\"outcome\":\"FAILED\",\"reason\":\"primary looks stuck\"}");
        assertEquals(200, resolved.statusCode(), resolved.body());
        JsonNode done = pipeline.awaitStatus(jobId, "SUCCEEDED", Duration.ofSeconds(20));

        // then A's late answer is billed on A, discarded (attempt-failed) and on race-audit with its cost
        List<JsonNode> audits = TopicProbe.await(TestKafka.shared().bootstrapServers(), Topics.RACE_AUDIT.name(),
                r -> jobId.equals(TopicProbe.text(r.key())), 1, Duration.ofSeconds(30)).stream()
                .map(r -> Json.parse(TopicProbe.text(r.value()))).toList();
        JsonNode audit = audits.get(0);
        assertEquals(attemptA, audit.path("losing_attempt").path("attempt_id").asText());
        assertEquals("attempt-failed", audit.path("reason").asText());
        assertTrue(audit.path("losing_attempt").path("cost_usd").isNumber(), audit.toString());
        JsonNode a = pipeline.job(jobId).path("attempts").get(0);
        assertEquals("DISCARDED", a.path("status").asText());
        assertTrue(a.path("usage").path("output_tokens").asLong() > 0, a.toString());
        assertEquals(done.path("attempts").get(1).path("id").asText(), pipeline.job(jobId).path("completed_by")
                .asText(), "the winner stands");
    }
}
