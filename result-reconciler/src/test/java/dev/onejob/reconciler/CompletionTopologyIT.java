package dev.onejob.reconciler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.db.Database;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.core.ledger.JobStatus;
import dev.onejob.core.ledger.ProviderGate;
import dev.onejob.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The completion branch of the topology under TopologyTestDriver, against the real ledger in PostgreSQL. */
class CompletionTopologyIT {
    private final ReconcilerFixture fixture = new ReconcilerFixture(Database.wrap(TestDatabase.shared().dataSource()));
    private TopologyTestDriver driver;
    private TestInputTopic<byte[], byte[]> completions;
    private TestOutputTopic<byte[], byte[]> deadLetters;

    @BeforeEach
    void startDriver() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "completion-topology-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(ReconcilerTopology.build(
                new CompletionHandler(fixture.ledger, ProviderGate.ALLOW_ALL, new ReconcilerMetrics())), props);
        completions = driver.createInputTopic(Topics.ATTEMPT_COMPLETIONS.name(), new ByteArraySerializer(),
                new ByteArraySerializer());
        deadLetters = driver.createOutputTopic(Topics.ATTEMPT_COMPLETIONS_DLQ.name(), new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }

    @AfterEach
    void stopDriver() {
        driver.close();
    }

    private void pipe(AttemptCompletion completion) {
        completions.pipeInput(completion.jobId().toString().getBytes(StandardCharsets.UTF_8),
                Json.write(completion.toJson()).getBytes(StandardCharsets.UTF_8));
    }

    private String deadLetterReason() {
        var letter = deadLetters.readRecord();
        return new String(letter.headers().lastHeader(Headers.DLQ_REASON).value(),
                StandardCharsets.UTF_8);
    }

    @Test
    void theWinnerAndALateLoserAreAppliedOnceEvenWhenEachIsDeliveredTwice() {
        // given A cancelled out of band and B started
        Attempt[] ab = fixture.cancelledThenFallback();

        // when B's answer and then A's late answer arrive, each twice
        pipe(ReconcilerFixture.succeeded(ab[1], ReconcilerFixture.RESULT_B));
        pipe(ReconcilerFixture.succeeded(ab[0], ReconcilerFixture.RESULT_A));
        pipe(ReconcilerFixture.succeeded(ab[1], ReconcilerFixture.RESULT_B));
        pipe(ReconcilerFixture.succeeded(ab[0], ReconcilerFixture.RESULT_A));

        // then B's result is the job's, A is discarded, one result and one audit record are queued, nothing dead-lettered
        var job = fixture.ledger.job(ab[0].jobId()).orElseThrow();
        assertEquals(JobStatus.SUCCEEDED, job.status());
        assertEquals(ReconcilerFixture.RESULT_B, job.result());
        assertEquals(AttemptStatus.DISCARDED, fixture.ledger.attempt(ab[0].id()).orElseThrow().status());
        assertEquals(1, fixture.outbox(Topics.JOB_RESULTS.name(), job.id()));
        assertEquals(1, fixture.outbox(Topics.RACE_AUDIT.name(), job.id()));
        assertTrue(deadLetters.isEmpty());
    }

    @Test
    void aFailureFailsOverOnceAndTheFallbacksFailureFailsTheJob() {
        Attempt a = fixture.startedJob("owner-a");

        pipe(ReconcilerFixture.failed(a, "connection_refused", false));
        pipe(ReconcilerFixture.failed(a, "connection_refused", false));

        var attempts = fixture.ledger.attempts(a.jobId());
        assertEquals(2, attempts.size(), "one failover attempt, however often the failure is delivered");
        Attempt b = attempts.get(1);
        assertEquals("backup", b.provider());
        fixture.ledger.start(b.id(), java.time.Duration.ofSeconds(30));
        pipe(ReconcilerFixture.failed(b, "contract_violation", true));
        var job = fixture.ledger.job(a.jobId()).orElseThrow();
        assertEquals(JobStatus.FAILED, job.status());
        assertEquals("contract_violation", job.errorCode());
        assertEquals(1, fixture.outbox(Topics.JOB_RESULTS.name(), job.id()));
        assertTrue(fixture.ledger.attempt(b.id()).orElseThrow().errorMessage().contains("contract_violation"));
    }

    @Test
    void forgedMalformedAndMismatchedCompletionsAreDeadLetteredWithAReasonAndTheLedgerIsUntouched() {
        Attempt a = fixture.startedJob("owner-a");
        Attempt other = fixture.startedJob("owner-b");
        long jobsBefore = fixture.ledger.jobsCount();

        // an attempt the ledger does not know
        pipe(new AttemptCompletion(UUID.randomUUID(), a.jobId(), AttemptCompletion.Outcome.SUCCEEDED,
                ReconcilerFixture.RESULT_A, null, null, "primary", "m", null, 1, java.time.Instant.now()));
        assertTrue(deadLetterReason().contains("no attempt"));
        // a real attempt under another job's id
        pipe(new AttemptCompletion(a.id(), other.jobId(), AttemptCompletion.Outcome.SUCCEEDED,
                ReconcilerFixture.RESULT_A, null, null, "primary", "m", null, 1, java.time.Instant.now()));
        assertTrue(deadLetterReason().contains("belongs to job"));
        // a success that claims another provider than the attempt ran on (checked inside the CAS's transaction)
        pipe(new AttemptCompletion(a.id(), a.jobId(), AttemptCompletion.Outcome.SUCCEEDED,
                ReconcilerFixture.RESULT_A, null, null, "backup", "m", null, 1, java.time.Instant.now()));
        assertTrue(deadLetterReason().contains("ran on primary, not backup"));
        assertEquals(AttemptStatus.STARTING, fixture.ledger.attempt(a.id()).orElseThrow().status());
        // not JSON, and JSON that is not a completion
        completions.pipeInput(a.jobId().toString().getBytes(StandardCharsets.UTF_8), "{oops".getBytes(StandardCharsets.UTF_8));
        assertTrue(deadLetterReason().contains("not valid JSON"));
        completions.pipeInput(a.jobId().toString().getBytes(StandardCharsets.UTF_8),
                "{\"attempt_id\":\"x\"}".getBytes(StandardCharsets.UTF_8));
        assertTrue(deadLetterReason().contains("not a valid attempt completion"));

        assertEquals(AttemptStatus.STARTING, fixture.ledger.attempt(a.id()).orElseThrow().status());
        assertEquals(JobStatus.RUNNING, fixture.ledger.job(a.jobId()).orElseThrow().status());
        // the winner's completion delivered again with a different result
        pipe(ReconcilerFixture.succeeded(other, ReconcilerFixture.RESULT_B));
        pipe(ReconcilerFixture.succeeded(other, ReconcilerFixture.RESULT_A));
        assertTrue(deadLetterReason().contains("different result"));
        assertEquals(ReconcilerFixture.RESULT_B, fixture.ledger.job(other.jobId()).orElseThrow().result());
        assertEquals(jobsBefore, fixture.ledger.jobsCount());
        assertEquals(0, fixture.outbox(Topics.JOB_RESULTS.name(), a.jobId()));
        assertEquals(1, fixture.outbox(Topics.JOB_RESULTS.name(), other.jobId()));
    }

    @Test
    void aCommandNoWorkerCouldRunFailsItsPendingAttemptAndTheJobFailsOverButASentFailureCannot() {
        // given two jobs whose first attempts no worker has started
        Attempt skewed = fixture.pendingJob("owner-a");
        Attempt pending = fixture.pendingJob("owner-b");

        // when a worker that does not know the provider reports it (nothing sent), and a forged "sent" failure arrives
        pipe(ReconcilerFixture.failed(skewed, "unknown_provider", false));
        pipe(ReconcilerFixture.failed(pending, "http_500", true));

        // then the first attempt is FAILED and the job failed over to the backup; the second is still PENDING
        assertEquals(AttemptStatus.FAILED, fixture.ledger.attempt(skewed.id()).orElseThrow().status());
        assertEquals("unknown_provider", fixture.ledger.attempt(skewed.id()).orElseThrow().errorCode());
        assertEquals(JobStatus.QUEUED, fixture.ledger.job(skewed.jobId()).orElseThrow().status());
        var attempts = fixture.ledger.attempts(skewed.jobId());
        assertEquals(2, attempts.size());
        assertEquals("backup", attempts.get(1).provider());
        assertEquals(AttemptStatus.PENDING, attempts.get(1).status());
        assertEquals(AttemptStatus.PENDING, fixture.ledger.attempt(pending.id()).orElseThrow().status());
        assertTrue(deadLetters.isEmpty());
    }

    @Test
    void aCompletionPostgresCannotStoreIsDeadLetteredAndTheCompletionsBehindItAreApplied() {
        // given two started attempts, and a completion for the first whose result carries a U+0000 (an old worker's,
        // or a forged one: the worker itself turns such an answer into a FAILED invalid_answer)
        Attempt poisoned = fixture.startedJob("owner-a");
        Attempt next = fixture.startedJob("owner-b");
        pipe(ReconcilerFixture.succeeded(poisoned, Json.parse("{\"sentiment\":\"positive\",\"summary\":\"a\\u0000b\"}")));
        pipe(ReconcilerFixture.succeeded(next, ReconcilerFixture.RESULT_B));

        // then the first is parked with its reason, the ledger untouched for it, and the second is applied
        assertTrue(deadLetterReason().contains("U+0000"));
        assertTrue(deadLetters.isEmpty());
        assertEquals(AttemptStatus.STARTING, fixture.ledger.attempt(poisoned.id()).orElseThrow().status());
        assertEquals(JobStatus.SUCCEEDED, fixture.ledger.job(next.jobId()).orElseThrow().status());
    }

    @Test
    void anUnknownCompletionMarksTheAttemptAndJobUnknownWithoutFailover() {
        Attempt a = fixture.startedJob("owner-a");
        pipe(new AttemptCompletion(a.id(), a.jobId(), AttemptCompletion.Outcome.UNKNOWN, null, null,
                "no answer within soft timeout PT1S", "primary", "m", null, 1000, java.time.Instant.now()));
        assertEquals(AttemptStatus.UNKNOWN, fixture.ledger.attempt(a.id()).orElseThrow().status());
        assertEquals(JobStatus.UNKNOWN, fixture.ledger.job(a.jobId()).orElseThrow().status());
        assertEquals(1, fixture.ledger.attempts(a.jobId()).size());
    }
}
