package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonSchemas;
import dev.onejob.core.kafka.Topics;
import dev.onejob.simulator.Behaviour;
import dev.onejob.testing.TestKafka;
import dev.onejob.testing.TopicProbe;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The design's scenarios end to end: HTTP in, the worker calling simulators over HTTP, the reconciler deciding. */
class PipelineIT {
    private static final JsonSchemas RACE_AUDIT = JsonSchemas.fromClasspath("events/race-audit.v2.schema.json");
    private static final JsonSchemas JOB_RESULT = JsonSchemas.fromClasspath("events/job-result.v1.schema.json");
    private static PipelineFixture pipeline;

    @BeforeAll
    static void start() throws Exception {
        pipeline = new PipelineFixture();
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @AfterEach
    void resetSimulators() {
        pipeline.stack.services().simulators().values().forEach(sim -> {
            sim.resetBehaviours();
            sim.refuseConnections(false);
        });
    }

    private static String submit(String text) {
        var response = pipeline.send("POST", "/v1/jobs", "alice", Map.of("Idempotency-Key", "p-" + UUID.randomUUID()),
                "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"" + text + "\"},\"target\":\"primary\","
                        + "\"fallbacks\":[\"backup\"]}");
        assertEquals(201, response.statusCode(), response.body());
        return Json.parse(response.body()).path("id").asText();
    }

    private static List<JsonNode> records(String topic, String jobId, int expected) {
        return TopicProbe.await(TestKafka.shared().bootstrapServers(), topic,
                r -> jobId.equals(TopicProbe.text(r.key())), expected, Duration.ofSeconds(30))
                .stream().map(r -> Json.parse(TopicProbe.text(r.value()))).toList();
    }

    @Test
    void theReverseOrderFinishKeepsTheFallbacksResultAndAuditsTheLatePrimary() {
        // given a primary that answers only after 10 s (its soft timeout is 1 s, its hard timeout 15 s) and a backup
        // that answers in 1 s. Not 5 s: on a loaded CI machine the operator's steps below took more than the 4 s
        // between UNKNOWN and A's late answer, which then won (UNKNOWN -> SUCCEEDED) and the button got 409
        // job-finished
        pipeline.simulator("primary").setDefaultBehaviour(Behaviour.hangThenAnswer(Duration.ofSeconds(10)));
        pipeline.simulator("backup").setDefaultBehaviour(Behaviour.answerAfter(Duration.ofSeconds(1)));

        // when the job's first attempt times out: UNKNOWN, and the fallback button is refused
        String jobId = submit("I loved it");
        JsonNode unknown = pipeline.awaitStatus(jobId, "UNKNOWN", Duration.ofSeconds(20));
        String attemptA = unknown.path("attempts").get(0).path("id").asText();
        var refused = pipeline.send("POST", "/v1/jobs/" + jobId + "/attempts", "alice", Map.of(), "{\"provider\":\"backup\"}");
        assertEquals(409, refused.statusCode(), refused.body());
        assertEquals(attemptA, Json.parse(refused.body()).path("attempt_id").asText(), refused.body());

        // and an operator cancels A, the owner presses the button, B answers, then A's late answer arrives
        var resolved = pipeline.send("POST", "/v1/attempts/" + attemptA + "/resolve", "ops", Map.of(),
                "{\"outcome\":\"CANCELLED\",\"reason\":\"primary is hanging\"}");
        assertEquals(200, resolved.statusCode(), resolved.body());
        var pressed = pipeline.send("POST", "/v1/jobs/" + jobId + "/attempts", "alice", Map.of(), "{\"provider\":\"backup\"}");
        assertEquals(202, pressed.statusCode(), pressed.body());
        String attemptB = Json.parse(pressed.body()).path("id").asText();
        JsonNode done = pipeline.awaitStatus(jobId, "SUCCEEDED", Duration.ofSeconds(20));
        List<JsonNode> audits = records(Topics.RACE_AUDIT.name(), jobId, 1);

        // then the result is B's, A is discarded, one race-audit record names A with reason and hash, one result
        assertEquals(attemptB, done.path("completed_by").asText());
        assertEquals(1, audits.size());
        JsonNode audit = audits.get(0);
        assertEquals(List.of(), RACE_AUDIT.violations(audit));
        assertEquals(attemptA, audit.path("losing_attempt").path("attempt_id").asText());
        assertEquals("attempt-cancelled", audit.path("reason").asText());
        JsonNode a = pipeline.job(jobId).path("attempts").get(0);
        assertEquals("DISCARDED", a.path("status").asText());
        assertEquals(a.path("discarded_result_sha256").asText(), audit.path("discarded_result_sha256").asText());
        List<JsonNode> results = records(Topics.JOB_RESULTS.name(), jobId, 1);
        assertEquals(1, results.size());
        assertEquals(List.of(), JOB_RESULT.violations(results.get(0)));
        assertEquals(1, pipeline.simulator("primary").requestsWithIdempotencyKey(attemptA));
        assertEquals(1, pipeline.simulator("backup").requestsWithIdempotencyKey(attemptB));
    }

    @ParameterizedTest(name = "a {0} answer")
    @ValueSource(strings = {"nul", "lone_surrogate", "oversize"})
    void anAnswerThatCannotBeStoredFailsItsAttemptTheJobFailsOverAndTheJobsBehindItFinish(String flavour)
            throws Exception {
        // given a primary whose answers carry a U+0000, an unpaired surrogate, or 2 MiB in a free-text field
        pipeline.simulator("primary").setDefaultBehaviour(Behaviour.poisonAnswer(flavour));

        // when a job runs on it
        String jobId = submit("I loved it");
        JsonNode done = pipeline.awaitStatus(jobId, "SUCCEEDED", Duration.ofSeconds(30));

        // then the primary's attempt is a definite failure (the oversize one breaks the contract's maxLength first),
        // the backup's answer is the result, and the answer is kept in a form PostgreSQL could store
        JsonNode first = done.path("attempts").get(0);
        assertEquals("FAILED", first.path("status").asText());
        assertEquals(flavour.equals("oversize") ? "contract_violation" : "invalid_answer",
                first.path("error").path("code").asText(), first.toString());
        assertEquals("backup", done.path("attempts").get(1).path("provider").asText());
        assertEquals(done.path("attempts").get(1).path("id").asText(), done.path("completed_by").asText());
        String kept = offendingAnswer(first.path("id").asText());
        assertTrue(kept != null && kept.length() < 70_000, "kept, and cut: " + (kept == null ? null : kept.length()));
        if (!flavour.equals("oversize")) {
            String summary = Json.parse(kept).path("summary").asText();
            assertTrue(summary.endsWith(String.valueOf(flavour.equals("nul") ? (char) 0 : (char) 0xD800)),
                    "the kept answer parses back to what the provider sent");
        }

        // and the jobs behind it are not held up
        pipeline.simulator("primary").resetBehaviours();
        String next = submit("still fine");
        JsonNode after = pipeline.awaitStatus(next, "SUCCEEDED", Duration.ofSeconds(20));
        assertEquals("primary", after.path("attempts").get(0).path("provider").asText());
    }

    private static String offendingAnswer(String attemptId) throws SQLException {
        try (var connection = pipeline.stack.database().dataSource().getConnection();
             var statement = connection.prepareStatement("SELECT offending_answer FROM attempts WHERE id = ?")) {
            statement.setObject(1, UUID.fromString(attemptId));
            try (var rows = statement.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    @Test
    void aPrimaryServerErrorFailsOverAndTheJobSucceedsOnTheFallback() {
        pipeline.simulator("primary").setDefaultBehaviour(Behaviour.status(500));

        String jobId = submit("I loved it");
        JsonNode done = pipeline.awaitStatus(jobId, "SUCCEEDED", Duration.ofSeconds(20));

        assertEquals("FAILED", done.path("attempts").get(0).path("status").asText());
        assertEquals("http_500", done.path("attempts").get(0).path("error").path("code").asText());
        assertEquals("backup", done.path("attempts").get(1).path("provider").asText());
        assertEquals(done.path("attempts").get(1).path("id").asText(), done.path("completed_by").asText());
    }

    @Test
    void aRefusingPrimaryAndAFallbackThatInventsAKeyFailTheJobWithBothErrors() {
        pipeline.simulator("primary").refuseConnections(true);
        pipeline.simulator("backup").setDefaultBehaviour(Behaviour.inventKey("confidence"));

        String jobId = submit("I loved it");
        JsonNode failed = pipeline.awaitStatus(jobId, "FAILED", Duration.ofSeconds(20));

        // a refused connection ran nothing: retried once on primary (its retry policy), then failed over
        assertEquals("connection_refused", failed.path("attempts").get(0).path("error").path("code").asText());
        assertEquals("connection_refused", failed.path("attempts").get(1).path("error").path("code").asText());
        assertEquals("primary", failed.path("attempts").get(1).path("provider").asText());
        assertTrue(failed.path("attempts").get(1).path("not_before").isTextual(), "the retry waited its backoff");
        assertEquals("contract_violation", failed.path("attempts").get(2).path("error").path("code").asText());
        assertTrue(failed.path("result").isNull());
        JsonNode result = records(Topics.JOB_RESULTS.name(), jobId, 1).get(0);
        assertEquals("FAILED", result.path("status").asText());
        assertEquals(List.of("connection_refused", "connection_refused", "contract_violation"),
                List.of(result.path("attempts").get(0).path("error_code").asText(),
                        result.path("attempts").get(1).path("error_code").asText(),
                        result.path("attempts").get(2).path("error_code").asText()));
    }

    @Test
    void theDoubleClickMakesOneJobAndOneProviderCall() {
        String key = "dbl-" + UUID.randomUUID();
        String body = "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"I loved it\"},\"target\":\"primary\"}";
        var first = pipeline.send("POST", "/v1/jobs", "alice", Map.of("Idempotency-Key", key), body);
        var second = pipeline.send("POST", "/v1/jobs", "alice", Map.of("Idempotency-Key", key), body);
        String jobId = Json.parse(first.body()).path("id").asText();
        assertEquals(jobId, Json.parse(second.body()).path("id").asText());
        JsonNode done = pipeline.awaitStatus(jobId, "SUCCEEDED", Duration.ofSeconds(20));
        assertEquals(1, done.path("attempts").size());
        assertEquals(1, pipeline.simulator("primary")
                .requestsWithIdempotencyKey(done.path("attempts").get(0).path("id").asText()));
    }

    @Test
    void aFailoverIsBlockedWhenTheFallbackFailedItsCertification() {
        // given backup re-certified while it invents a top-level key: the certification fails
        pipeline.simulator("backup").setDefaultBehaviour(Behaviour.inventKey("confidence"));
        try {
            var certified = pipeline.send("POST", "/v1/certifications", "ops", Map.of(),
                    "{\"provider\":\"backup\",\"contract\":\"sentiment\"}");
            assertEquals(200, certified.statusCode(), certified.body());
            assertEquals(false, Json.parse(certified.body()).path("certifications").get(0).path("passed").asBoolean(true));

            // when the primary fails
            pipeline.simulator("primary").setDefaultBehaviour(Behaviour.status(500));
            String jobId = submit("I loved it");

            // then there is no failover: the job FAILED, saying backup failed its certification
            JsonNode failed = pipeline.awaitStatus(jobId, "FAILED", Duration.ofSeconds(20));
            assertEquals(1, failed.path("attempts").size());
            assertTrue(failed.path("error").path("message").asText().contains("backup failed its latest certification"),
                    failed.toString());
        } finally {
            // leave backup certified again for the other scenarios
            pipeline.simulator("backup").resetBehaviours();
            var again = pipeline.send("POST", "/v1/certifications", "ops", Map.of(),
                    "{\"provider\":\"backup\",\"contract\":\"sentiment\"}");
            assertEquals(true, Json.parse(again.body()).path("certifications").get(0).path("passed").asBoolean(false));
        }
    }
}
