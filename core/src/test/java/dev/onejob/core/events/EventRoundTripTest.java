package dev.onejob.core.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.contract.FinishReason;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonSchemas;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every wire event, written by its record, validates against its JSON Schema in the schema module, reads back to
 * an equal record, and its schema refuses an invented field: the record and the schema change together.
 */
class EventRoundTripTest {
    private static final Instant T = Instant.parse("2026-12-03T12:00:00.123Z");
    private static final UUID JOB = UUID.fromString("00000000-0000-4000-8000-000000000001");
    private static final UUID A = UUID.fromString("00000000-0000-4000-8000-00000000000a");
    private static final UUID B = UUID.fromString("00000000-0000-4000-8000-00000000000b");
    private static final JsonNode REQUEST = Json.parse(
            "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"héllo\"},\"target\":\"primary\",\"fallbacks\":[\"backup\"]}");
    private static final JsonNode RESULT = Json.parse("{\"sentiment\":\"positive\",\"summary\":\"ok\"}");

    /**
     * {@code required}: a field the reader must refuse to do without; {@code closed}: whether the schema refuses
     * fields it does not name (job-requests come from upstream services and may carry more).
     */
    record Case(String schema, Object event, Function<Object, ObjectNode> write, Function<JsonNode, Object> read,
                String required, boolean closed) {
        @Override
        public String toString() {
            return schema + " " + event.getClass().getSimpleName();
        }
    }

    static Stream<Arguments> events() {
        return Stream.of(
                new Case("attempt-command", new AttemptCommand(A, JOB, "alice", 1, "primary", 3, "sentiment", REQUEST, T),
                        e -> ((AttemptCommand) e).toJson(), AttemptCommand::fromJson, "attempt_id", true),
                new Case("attempt-completion", new AttemptCompletion(A, JOB, AttemptCompletion.Outcome.SUCCEEDED,
                        RESULT, null, null, "primary", "gpt-4o-mini", "req-1", 42, T),
                        e -> ((AttemptCompletion) e).toJson(), AttemptCompletion::fromJson, "outcome", true),
                new Case("attempt-completion", new AttemptCompletion(B, JOB, AttemptCompletion.Outcome.FAILED, null,
                        new AttemptCompletion.Error("contract_violation", "invented key", false, true, 200,
                                "{\"mood\":1}"), null, "backup", "claude-sonnet-4-5", null, 7, T),
                        e -> ((AttemptCompletion) e).toJson(), AttemptCompletion::fromJson, "outcome", true),
                new Case("attempt-completion", new AttemptCompletion(A, JOB, AttemptCompletion.Outcome.SUCCEEDED,
                        RESULT, null, null, "primary", "gpt-4o-mini", "req-2", 42, T, new Usage(1200, 80, 1024),
                        new BigDecimal("0.0001248000")),
                        e -> ((AttemptCompletion) e).toJson(), AttemptCompletion::fromJson, "outcome", true),
                new Case("attempt-completion", new AttemptCompletion(A, JOB, AttemptCompletion.Outcome.SUCCEEDED,
                        RESULT, null, null, "primary", "gpt-4o-mini", "req-3", 42, T, new Usage(10, 5, 0),
                        new BigDecimal("0.0000045"), UUID.fromString("7b7c7f1e-0000-4000-8000-000000000001")),
                        e -> ((AttemptCompletion) e).toJson(), AttemptCompletion::fromJson, "outcome", true),
                new Case("attempt-completion", new AttemptCompletion(A, JOB, AttemptCompletion.Outcome.FAILED,
                        null, new AttemptCompletion.Error("http_429", "rate limited", true, true, 429, null, 1500L),
                        null, "primary", "gpt-4o-mini", "req-4", 42, T, null, null,
                        UUID.fromString("7b7c7f1e-0000-4000-8000-000000000002")),
                        e -> ((AttemptCompletion) e).toJson(), AttemptCompletion::fromJson, "outcome", true),
                new Case("job-result", new JobResult(JOB, "alice", "k-1", "SUCCEEDED", B, RESULT, null,
                        List.of(new JobResult.AttemptBrief(A, 1, "primary", "DISCARDED", null),
                                new JobResult.AttemptBrief(B, 2, "backup", "SUCCEEDED", null)), T),
                        e -> ((JobResult) e).toJson(), JobResult::fromJson, "status", true),
                new Case("job-result", new JobResult(JOB, "alice", "k-2", "FAILED", null, null,
                        new JobResult.Error("http_500", "no fallback left"),
                        List.of(new JobResult.AttemptBrief(A, 1, "primary", "FAILED", "http_500")), T),
                        e -> ((JobResult) e).toJson(), JobResult::fromJson, "status", true),
                new Case("race-audit", new RaceAudit(JOB, "alice", new RaceAudit.AttemptSummary(B, 2, "backup", T, T),
                        new RaceAudit.AttemptSummary(A, 1, "primary", T, null, new BigDecimal("0.0000750000")),
                        "lost-cas", "a".repeat(64), T),
                        e -> ((RaceAudit) e).toJson(), RaceAudit::fromJson, "losing_attempt", true),
                new Case("race-audit", new RaceAudit(JOB, "alice", null,
                        new RaceAudit.AttemptSummary(A, 1, "primary", T, T), "job-cancelled", "b".repeat(64), T),
                        e -> ((RaceAudit) e).toJson(), RaceAudit::fromJson, "losing_attempt", true),
                new Case("job-request", new JobRequest("alice", "k-1", REQUEST),
                        e -> ((JobRequest) e).toJson(), JobRequest::fromJson, "idempotency_key", false),
                new Case("job-request-outcome", new JobRequestOutcome("r-1", "alice", "k-1", "CREATED", JOB, null,
                        new JobRequestOutcome.Source("job-requests", 2, 17)),
                        e -> ((JobRequestOutcome) e).toJson(), JobRequestOutcome::fromJson, "source", true),
                new Case("job-request-outcome", new JobRequestOutcome(null, null, null, "INVALID", null,
                        new JobRequestOutcome.Problem("https://onejob.dev/problems/malformed-record", "not JSON",
                                List.of("not JSON")), new JobRequestOutcome.Source("job-requests", 0, 3)),
                        e -> ((JobRequestOutcome) e).toJson(), JobRequestOutcome::fromJson, "source", true)
        ).map(Arguments::of);
    }

    /** The schema of the version the record writes: each record's VERSION names its file. */
    private static JsonSchemas schemaOf(Case c) {
        int version = switch (c.schema()) {
            case "attempt-completion" -> AttemptCompletion.VERSION;
            case "race-audit" -> RaceAudit.VERSION;
            case "attempt-command" -> AttemptCommand.VERSION;
            case "job-result" -> JobResult.VERSION;
            case "job-request" -> JobRequest.VERSION;
            default -> JobRequestOutcome.VERSION;
        };
        return JsonSchemas.fromClasspath("events/" + c.schema() + ".v" + version + ".schema.json");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("events")
    void writtenValidatesAndReadsBackEqual(Case c) {
        JsonSchemas schema = schemaOf(c);
        ObjectNode written = c.write().apply(c.event());
        assertEquals(List.of(), schema.violations(written), written.toString());
        assertEquals(c.event(), c.read().apply(Json.parse(Json.write(written))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("events")
    void theSchemaRefusesAnInventedField(Case c) {
        ObjectNode written = c.write().apply(c.event());
        written.put("priority", "high");
        assertEquals(c.closed(), !schemaOf(c)
                .violations(written).isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("events")
    void aRecordWithoutARequiredFieldDoesNotRead(Case c) {
        ObjectNode written = c.write().apply(c.event());
        String field = c.required();
        assertTrue(written.has(field), field);
        written.remove(field);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> c.read().apply(written));
        assertTrue(refused.getMessage().contains(field), refused.getMessage());
    }

    @Test
    void versionOneCompletionsAndRaceAuditsStillRead() {
        // given records as version 1 wrote them: no usage, no cost
        ObjectNode completion = new AttemptCompletion(A, JOB, AttemptCompletion.Outcome.SUCCEEDED, RESULT, null, null,
                "primary", "gpt-4o-mini", "req-1", 42, T).toJson();
        completion.remove("usage");
        completion.remove("cost_usd");
        completion.remove("start_token");
        completion.remove("finish_reason");
        assertEquals(List.of(), JsonSchemas.fromClasspath("events/attempt-completion.v1.schema.json")
                .violations(completion));
        ObjectNode audit = new RaceAudit(JOB, "alice", null, new RaceAudit.AttemptSummary(A, 1, "primary", T, T),
                "job-cancelled", "b".repeat(64), T).toJson();
        ((ObjectNode) audit.get("losing_attempt")).remove("cost_usd");
        assertEquals(List.of(), JsonSchemas.fromClasspath("events/race-audit.v1.schema.json").violations(audit));

        // when they are read, then nothing was billed that onejob knows of
        assertEquals(null, AttemptCompletion.fromJson(completion).usage());
        assertEquals(null, RaceAudit.fromJson(audit).losingAttempt().costUsd());
    }

    @Test
    void versionTwoCompletionsReadWithoutAStartToken() {
        ObjectNode completion = new AttemptCompletion(A, JOB, AttemptCompletion.Outcome.SUCCEEDED, RESULT, null, null,
                "primary", "gpt-4o-mini", "req-1", 42, T, new Usage(10, 5, 0), new BigDecimal("0.01"),
                UUID.randomUUID()).toJson();
        completion.remove("start_token");
        completion.remove("finish_reason");
        assertEquals(List.of(), JsonSchemas.fromClasspath("events/attempt-completion.v2.schema.json")
                .violations(completion));
        assertEquals(null, AttemptCompletion.fromJson(completion).startToken());
        completion.put("start_token", "not-a-uuid");
        assertThrows(IllegalArgumentException.class, () -> AttemptCompletion.fromJson(completion));
    }

    @Test
    void versionThreeFailuresReadWithoutARetryHint() {
        ObjectNode completion = new AttemptCompletion(A, JOB, AttemptCompletion.Outcome.FAILED, null,
                new AttemptCompletion.Error("http_429", "rate limited", true, true, 429, null, 2000L), null, "primary",
                "gpt-4o-mini", null, 42, T, null, null, UUID.randomUUID()).toJson();
        ((ObjectNode) completion.get("error")).remove("retry_after_ms");
        completion.remove("finish_reason");
        assertEquals(List.of(), JsonSchemas.fromClasspath("events/attempt-completion.v3.schema.json")
                .violations(completion));
        assertEquals(null, AttemptCompletion.fromJson(completion).error().retryAfterMs());
    }

    @Test
    void versionFourAnswersReadWithoutAFinishReasonAndVersionFiveCarriesIt() {
        AttemptCompletion cut = new AttemptCompletion(A, JOB, AttemptCompletion.Outcome.SUCCEEDED, RESULT, null, null,
                "primary", "gpt-4o-mini", "req-1", 42, T, new Usage(10, 5, 0), null, UUID.randomUUID(),
                FinishReason.LENGTH);
        ObjectNode v5 = cut.toJson();
        assertEquals("length", v5.path("finish_reason").asText());
        assertEquals(cut, AttemptCompletion.fromJson(v5));
        ObjectNode v4 = v5.deepCopy();
        v4.remove("finish_reason");
        assertEquals(List.of(), JsonSchemas.fromClasspath("events/attempt-completion.v4.schema.json").violations(v4));
        assertEquals(null, AttemptCompletion.fromJson(v4).finishReason());
        v5.put("finish_reason", "bored");
        assertThrows(IllegalArgumentException.class, () -> AttemptCompletion.fromJson(v5));
        assertThrows(IllegalArgumentException.class, () -> new AttemptCompletion(A, JOB,
                AttemptCompletion.Outcome.UNKNOWN, null, null, "silent", "primary", null, null, 0, T, null, null,
                null, FinishReason.STOP));
    }

    @Test
    void aCompletionRefusesUsageNoProviderReports() {
        ObjectNode completion = new AttemptCompletion(A, JOB, AttemptCompletion.Outcome.SUCCEEDED, RESULT, null, null,
                "primary", "gpt-4o-mini", "req-1", 42, T, new Usage(10, 5, 0), new BigDecimal("0.01")).toJson();
        ((ObjectNode) completion.get("usage")).put("cached_input_tokens", 11);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> AttemptCompletion.fromJson(completion));
        assertTrue(refused.getMessage().contains("cached_input_tokens"), refused.getMessage());
        ObjectNode negative = new AttemptCompletion(A, JOB, AttemptCompletion.Outcome.SUCCEEDED, RESULT, null, null,
                "primary", "gpt-4o-mini", "req-1", 42, T, new Usage(10, 5, 0), new BigDecimal("0.01")).toJson();
        negative.put("cost_usd", -1);
        assertThrows(IllegalArgumentException.class, () -> AttemptCompletion.fromJson(negative));
    }
}
