package dev.onejob.chaos.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.chaos.check.RunRecord.AttemptCommand;
import dev.onejob.chaos.check.RunRecord.Completion;
import dev.onejob.chaos.check.RunRecord.DeadLetter;
import dev.onejob.chaos.check.RunRecord.JobResult;
import dev.onejob.chaos.check.RunRecord.ProviderCall;
import dev.onejob.chaos.check.RunRecord.RaceAudit;
import dev.onejob.chaos.check.RunRecord.RequestOutcome;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.core.ledger.Job;
import dev.onejob.core.ledger.JobStatus;
import dev.onejob.core.ledger.LedgerEvents;
import dev.onejob.core.ledger.LossReason;
import dev.onejob.simulator.LedgerEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The collector reads what the real producers write: the payloads here come from their own code. */
class TopicRecordsTest {
    private static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");
    private static final UUID JOB = UUID.randomUUID();
    private static final UUID WINNER = UUID.randomUUID();
    private static final UUID LOSER = UUID.randomUUID();
    private static final JsonNode RESULT = Json.parse("{\"answer\": 42}");

    @Test
    void readsTheLedgersEvents() {
        Job job = new Job(JOB, "alice", "k-1", "a".repeat(64), Json.object(), "summary", "openai", List.of(),
                JobStatus.SUCCEEDED, 3, WINNER, RESULT, null, null, NOW, NOW, NOW);
        Attempt winner = attempt(WINNER, 2, AttemptStatus.SUCCEEDED);
        Attempt loser = attempt(LOSER, 1, AttemptStatus.DISCARDED);
        TopicRecords read = new TopicRecords();

        List<JobResult> results = read.read(records("job-results",
                LedgerEvents.jobResult(job, List.of(loser, winner)).toJson()), TopicRecords::result);
        List<RaceAudit> audits = read.read(records("race-audit",
                LedgerEvents.raceAudit(job, winner, loser, LossReason.LOST_CAS, "b".repeat(64), NOW).toJson()),
                TopicRecords::raceAudit);
        List<AttemptCommand> commands = read.read(records("attempt-commands",
                LedgerEvents.attemptCommand(job, winner).toJson()), TopicRecords::command);

        assertEquals(List.of(new JobResult(JOB.toString(), "alice", "k-1", "SUCCEEDED", WINNER.toString(), RESULT)),
                results);
        assertEquals(List.of(new RaceAudit(JOB.toString(), WINNER.toString(), LOSER.toString(), "lost-cas")), audits);
        assertEquals(List.of(new AttemptCommand(WINNER.toString(), JOB.toString())), commands);
        assertTrue(read.unreadable().isEmpty(), read.unreadable()::toString);
    }

    @Test
    void readsCompletionsAndOutcomesAndLowerCasesIds() {
        AttemptCompletion succeeded = new AttemptCompletion(WINNER, JOB, AttemptCompletion.Outcome.SUCCEEDED, RESULT,
                null, null, "openai", "gpt", "req-1", 10, NOW);
        ObjectNode outcome = Json.object().put("request_id", "chaos-7").put("owner_id", "bob")
                .put("idempotency_key", "k-2").put("outcome", "CREATED").put("job_id", JOB.toString().toUpperCase());
        TopicRecords read = new TopicRecords();

        List<Completion> completions = read.read(records("attempt-completions", succeeded.toJson()),
                TopicRecords::completion);
        List<RequestOutcome> outcomes = read.read(records("job-request-outcomes", outcome), TopicRecords::outcome);

        assertEquals(List.of(new Completion(WINNER.toString(), JOB.toString(), "SUCCEEDED", RESULT)), completions);
        assertEquals(List.of(new RequestOutcome("chaos-7", "bob", "k-2", "CREATED", JOB.toString())), outcomes);
    }

    @Test
    void anUnreadableRecordIsKeptWithWhereItIsAndWhy() {
        TopicRecords read = new TopicRecords();
        ConsumerRecord<byte[], byte[]> garbage = new ConsumerRecord<>("attempt-completions", 2, 41, null,
                "not json".getBytes(StandardCharsets.UTF_8));
        ConsumerRecord<byte[], byte[]> noId = new ConsumerRecord<>("attempt-completions", 2, 42, null,
                "{\"outcome\": \"FAILED\"}".getBytes(StandardCharsets.UTF_8));

        List<Completion> completions = read.read(List.of(garbage, noId), TopicRecords::completion);

        assertTrue(completions.isEmpty());
        assertEquals(2, read.unreadable().size());
        assertTrue(read.unreadable().get(0).startsWith("attempt-completions/2/41: the value is not JSON"));
        assertEquals("attempt-completions/2/42: 'attempt_id' is missing or not a string", read.unreadable().get(1));
    }

    @Test
    void aDeadLetterIsReadFromItsKeyAndReasonHeader() {
        ConsumerRecord<byte[], byte[]> letter = new ConsumerRecord<>("job-requests.dlq", 0, 0,
                "poison-1".getBytes(StandardCharsets.UTF_8), new byte[] {1, 2});
        letter.headers().add(Headers.DLQ_REASON, "not JSON".getBytes(StandardCharsets.UTF_8));
        ConsumerRecord<byte[], byte[]> bare = new ConsumerRecord<>("job-requests.dlq", 0, 1, null, null);

        List<DeadLetter> letters = TopicRecords.deadLetters(List.of(letter, bare));

        assertEquals(List.of(new DeadLetter("poison-1", "not JSON"), new DeadLetter(null, null)), letters);
    }

    @Test
    void readsSimulatorLedgerFilesNamedAfterTheirSimulator(@TempDir Path dir) throws Exception {
        var entries = Json.MAPPER.createArrayNode()
                .add(new LedgerEntry(1, NOW, "/v1/chat/completions", "openai-chat", WINNER.toString().toUpperCase(),
                        "gpt", "c".repeat(64), "answer", 200).toJson())
                .add(new LedgerEntry(2, NOW, "/v1/chat/completions", "openai-chat", LOSER.toString(), "gpt",
                        "c".repeat(64), "hang", null).toJson());
        Path file = dir.resolve("ledger-openai.json");
        Files.writeString(file, Json.write(entries));

        List<ProviderCall> calls = RunRecordCollector.providerCalls(List.of(file));

        assertEquals(List.of(new ProviderCall("openai", WINNER.toString(), "openai-chat", 200, "answer", NOW),
                new ProviderCall("openai", LOSER.toString(), "openai-chat", null, "hang", NOW)), calls);
    }

    private static Attempt attempt(UUID id, int number, AttemptStatus status) {
        return new Attempt(id, JOB, number, "openai", status, 1, NOW, NOW, NOW, null, NOW, null, null, null, null,
                status == AttemptStatus.DISCARDED ? LossReason.LOST_CAS : null, null, null, null, null, null);
    }

    private static List<ConsumerRecord<byte[], byte[]>> records(String topic, JsonNode value) {
        return List.of(new ConsumerRecord<>(topic, 0, 0L, JOB.toString().getBytes(StandardCharsets.UTF_8),
                Json.write(value).getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aJsonNullIdStaysNull() {
        assertNull(TopicRecords.id(null));
        assertEquals("not-a-uuid-KEY", TopicRecords.id("not-a-uuid-KEY"));
    }
}
