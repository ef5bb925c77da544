package dev.onejob.reconciler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.billing.Usage;
import dev.onejob.core.db.Database;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.core.ledger.BillingStore;
import dev.onejob.core.ledger.JobStatus;
import dev.onejob.core.ledger.ProviderGate;
import dev.onejob.testing.TestDatabase;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The completion loop over Kafka's own MockConsumer and a transactional MockProducer, against the real ledger in
 * PostgreSQL: each poll is applied as a set, and its dead letters and offsets commit in one Kafka transaction after
 * the ledger's. Against the real broker, {@link ReconcilerIT}.
 */
class CompletionConsumerIT {
    private static final TopicPartition PARTITION = new TopicPartition(Topics.ATTEMPT_COMPLETIONS.name(), 0);
    private final ReconcilerFixture fixture = new ReconcilerFixture(Database.wrap(TestDatabase.shared().dataSource()));
    private MockConsumer<byte[], byte[]> consumer;
    private MockProducer<byte[], byte[]> producer;
    private CompletionConsumer loop;
    private long offset;
    private int deadLettersRead;

    @BeforeEach
    void startLoop() {
        consumer = new MockConsumer<>("earliest");
        producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        producer.initTransactions();
        loop = new CompletionConsumer(consumer, producer,
                new CompletionHandler(fixture.ledger, new BillingStore(fixture.database), ProviderGate.ALLOW_ALL, new ReconcilerMetrics()),
                "result-reconciler", Duration.ZERO);
        consumer.assign(List.of(PARTITION));
        consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
    }

    /** Adds the records to the partition, then handles them as one poll; with no commit interval, commits it. */
    private void poll(List<byte[]> values, List<UUID> jobIds) {
        for (int i = 0; i < values.size(); i++) {
            consumer.addRecord(new ConsumerRecord<>(PARTITION.topic(), PARTITION.partition(), offset++,
                    jobIds.get(i).toString().getBytes(StandardCharsets.UTF_8), values.get(i)));
        }
        loop.handleOrRewind(consumer.poll(Duration.ZERO));
        loop.commitIfDue();
    }

    private void poll(List<AttemptCompletion> completions) {
        poll(completions.stream().map(c -> Json.write(c.toJson()).getBytes(StandardCharsets.UTF_8)).toList(),
                completions.stream().map(AttemptCompletion::jobId).toList());
    }

    private void pipe(AttemptCompletion completion) {
        poll(List.of(completion));
    }

    private void pipeRaw(UUID jobId, String value) {
        poll(List.of(value.getBytes(StandardCharsets.UTF_8)), List.of(jobId));
    }

    private String deadLetterReason() {
        List<ProducerRecord<byte[], byte[]>> letters = producer.history();
        assertTrue(letters.size() > deadLettersRead, "a dead letter was expected");
        var letter = letters.get(deadLettersRead++);
        assertEquals(Topics.ATTEMPT_COMPLETIONS_DLQ.name(), letter.topic());
        return new String(letter.headers().lastHeader(Headers.DLQ_REASON).value(), StandardCharsets.UTF_8);
    }

    private boolean noMoreDeadLetters() {
        return producer.history().size() == deadLettersRead;
    }

    /** The offset the last committed Kafka transaction stored for the partition. */
    private long committedOffset() {
        var history = producer.consumerGroupOffsetsHistory();
        return history.get(history.size() - 1).values().iterator().next().get(PARTITION).offset();
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
        var job = fixture.ledger.lookups().job(ab[0].jobId()).orElseThrow();
        assertEquals(JobStatus.SUCCEEDED, job.status());
        assertEquals(ReconcilerFixture.RESULT_B, job.result());
        assertEquals(AttemptStatus.DISCARDED, fixture.ledger.lookups().attempt(ab[0].id()).orElseThrow().status());
        assertEquals(1, fixture.outbox(Topics.JOB_RESULTS.name(), job.id()));
        assertEquals(1, fixture.outbox(Topics.RACE_AUDIT.name(), job.id()));
        assertTrue(noMoreDeadLetters());
    }

    @Test
    void aFailureFailsOverOnceAndTheFallbacksFailureFailsTheJob() {
        Attempt a = fixture.startedJob("owner-a");

        pipe(ReconcilerFixture.failed(a, "connection_refused", false));
        pipe(ReconcilerFixture.failed(a, "connection_refused", false));

        var attempts = fixture.ledger.lookups().attempts(a.jobId());
        assertEquals(2, attempts.size(), "one failover attempt, however often the failure is delivered");
        Attempt b = attempts.get(1);
        assertEquals("backup", b.provider());
        fixture.ledger.starts().start(b.id(), Duration.ofSeconds(30));
        pipe(ReconcilerFixture.failed(b, "contract_violation", true));
        var job = fixture.ledger.lookups().job(a.jobId()).orElseThrow();
        assertEquals(JobStatus.FAILED, job.status());
        assertEquals("contract_violation", job.errorCode());
        assertEquals(1, fixture.outbox(Topics.JOB_RESULTS.name(), job.id()));
        assertTrue(fixture.ledger.lookups().attempt(b.id()).orElseThrow().errorMessage().contains("contract_violation"));
        // and the ledger says which request may have reached its provider (V021)
        assertEquals("false", requestSent(a.id()), "a refused connection sent nothing");
        assertEquals("true", requestSent(b.id()), "a contract violation is an answer: the request was sent");
    }

    /** The attempt's request_sent, as text ("true", "false"), or "null". */
    private static String requestSent(UUID attemptId) {
        try (var connection = TestDatabase.shared().dataSource().getConnection();
             var statement = connection.prepareStatement("SELECT request_sent FROM attempts WHERE id = ?")) {
            statement.setObject(1, attemptId);
            try (var rows = statement.executeQuery()) {
                rows.next();
                return String.valueOf(rows.getObject(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void forgedMalformedAndMismatchedCompletionsAreDeadLetteredWithAReasonAndTheLedgerIsUntouched() {
        Attempt a = fixture.startedJob("owner-a");
        Attempt other = fixture.startedJob("owner-b");
        long jobsBefore = fixture.ledger.lookups().jobsCount();

        // an attempt the ledger does not know
        pipe(new AttemptCompletion(UUID.randomUUID(), a.jobId(), AttemptCompletion.Outcome.SUCCEEDED,
                ReconcilerFixture.RESULT_A, null, null, "primary", "m", null, 1, Instant.now(), null, null,
                UUID.randomUUID()));
        assertTrue(deadLetterReason().contains("no attempt"));
        // a real attempt under another job's id
        UUID token = ReconcilerFixture.startToken(a.id());
        pipe(new AttemptCompletion(a.id(), other.jobId(), AttemptCompletion.Outcome.SUCCEEDED,
                ReconcilerFixture.RESULT_A, null, null, "primary", "m", null, 1, Instant.now(), null, null,
                token));
        assertTrue(deadLetterReason().contains("belongs to job"));
        // a success that claims another provider than the attempt ran on (checked inside the CAS's transaction)
        pipe(new AttemptCompletion(a.id(), a.jobId(), AttemptCompletion.Outcome.SUCCEEDED,
                ReconcilerFixture.RESULT_A, null, null, "backup", "m", null, 1, Instant.now(), null, null,
                token));
        assertTrue(deadLetterReason().contains("ran on primary, not backup"));
        // a success for the live attempt by someone who did not start it: another token, or none (a version 2
        // record, or a forgery), with usage that must not be billed either
        pipe(new AttemptCompletion(a.id(), a.jobId(), AttemptCompletion.Outcome.SUCCEEDED,
                ReconcilerFixture.RESULT_A, null, null, "primary", "m", null, 1, Instant.now(),
                new Usage(10, 5, 0), new BigDecimal("0.5"), UUID.randomUUID()));
        assertTrue(deadLetterReason().contains("was not started with the start token"));
        pipe(new AttemptCompletion(a.id(), a.jobId(), AttemptCompletion.Outcome.SUCCEEDED,
                ReconcilerFixture.RESULT_A, null, null, "primary", "m", null, 1, Instant.now()));
        assertTrue(deadLetterReason().contains("carries no start token"));
        pipe(new AttemptCompletion(a.id(), a.jobId(), AttemptCompletion.Outcome.FAILED, null,
                new AttemptCompletion.Error("http_500", "forged", true, true, 500, null), null, "primary", "m", null,
                1, Instant.now(), null, null, UUID.randomUUID()));
        assertTrue(deadLetterReason().contains("was not started with the start token"));
        assertEquals(null, fixture.ledger.lookups().attempt(a.id()).orElseThrow().usage(), "the forged usage was not billed");
        assertEquals(AttemptStatus.STARTING, fixture.ledger.lookups().attempt(a.id()).orElseThrow().status());
        // not JSON, and JSON that is not a completion
        pipeRaw(a.jobId(), "{oops");
        assertTrue(deadLetterReason().contains("not valid JSON"));
        pipeRaw(a.jobId(), "{\"attempt_id\":\"x\"}");
        assertTrue(deadLetterReason().contains("not a valid attempt completion"));

        assertEquals(AttemptStatus.STARTING, fixture.ledger.lookups().attempt(a.id()).orElseThrow().status());
        assertEquals(JobStatus.RUNNING, fixture.ledger.lookups().job(a.jobId()).orElseThrow().status());
        // the winner's completion delivered again with a different result
        pipe(ReconcilerFixture.succeeded(other, ReconcilerFixture.RESULT_B));
        pipe(ReconcilerFixture.succeeded(other, ReconcilerFixture.RESULT_A));
        assertTrue(deadLetterReason().contains("different result"));
        assertEquals(ReconcilerFixture.RESULT_B, fixture.ledger.lookups().job(other.jobId()).orElseThrow().result());
        assertEquals(jobsBefore, fixture.ledger.lookups().jobsCount());
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
        // (a "sent" failure names a start, and nobody started this attempt: refused before the ledger is asked)
        assertTrue(deadLetterReason().contains("carries no start token"));

        // then the first attempt is FAILED and the job failed over to the backup; the second is still PENDING
        assertEquals(AttemptStatus.FAILED, fixture.ledger.lookups().attempt(skewed.id()).orElseThrow().status());
        assertEquals("unknown_provider", fixture.ledger.lookups().attempt(skewed.id()).orElseThrow().errorCode());
        assertEquals("false", requestSent(skewed.id()));
        assertEquals(JobStatus.QUEUED, fixture.ledger.lookups().job(skewed.jobId()).orElseThrow().status());
        var attempts = fixture.ledger.lookups().attempts(skewed.jobId());
        assertEquals(2, attempts.size());
        assertEquals("backup", attempts.get(1).provider());
        assertEquals(AttemptStatus.PENDING, attempts.get(1).status());
        assertEquals(AttemptStatus.PENDING, fixture.ledger.lookups().attempt(pending.id()).orElseThrow().status());
        assertTrue(noMoreDeadLetters());
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
        assertTrue(noMoreDeadLetters());
        assertEquals(AttemptStatus.STARTING, fixture.ledger.lookups().attempt(poisoned.id()).orElseThrow().status());
        assertEquals(JobStatus.SUCCEEDED, fixture.ledger.lookups().job(next.jobId()).orElseThrow().status());
    }

    @Test
    void anUnknownCompletionMarksTheAttemptAndJobUnknownWithoutFailover() {
        Attempt a = fixture.startedJob("owner-a");
        pipe(new AttemptCompletion(a.id(), a.jobId(), AttemptCompletion.Outcome.UNKNOWN, null, null,
                "no answer within soft timeout PT1S", "primary", "m", null, 1000, Instant.now(), null, null,
                ReconcilerFixture.startToken(a.id())));
        assertEquals(AttemptStatus.UNKNOWN, fixture.ledger.lookups().attempt(a.id()).orElseThrow().status());
        assertEquals(JobStatus.UNKNOWN, fixture.ledger.lookups().job(a.jobId()).orElseThrow().status());
        assertEquals(1, fixture.ledger.lookups().attempts(a.jobId()).size());
    }

    @Test
    void aPollOfAnswersRacesRedeliveriesAndAForgeryIsAppliedAsOneSetAndCommittedOnce() {
        // given 100 started jobs, and 20 jobs with A cancelled out of band and B started
        List<Attempt> single = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            single.add(fixture.startedJob("owner-" + (i % 7)));
        }
        List<Attempt[]> raced = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            raced.add(fixture.cancelledThenFallback());
        }
        Attempt forgedTarget = fixture.startedJob("owner-f");

        // when one poll carries every answer, both answers of each raced job (B's twice), and a forged answer
        List<AttemptCompletion> poll = new ArrayList<>();
        for (Attempt a : single) {
            poll.add(ReconcilerFixture.succeeded(a, ReconcilerFixture.RESULT_A));
        }
        for (Attempt[] ab : raced) {
            poll.add(ReconcilerFixture.succeeded(ab[1], ReconcilerFixture.RESULT_B));
            poll.add(ReconcilerFixture.succeeded(ab[0], ReconcilerFixture.RESULT_A));
            poll.add(ReconcilerFixture.succeeded(ab[1], ReconcilerFixture.RESULT_B));
        }
        poll.add(new AttemptCompletion(UUID.randomUUID(), forgedTarget.jobId(), AttemptCompletion.Outcome.SUCCEEDED,
                ReconcilerFixture.RESULT_B, null, null, "primary", "m", null, 1, Instant.now(), null, null,
                UUID.randomUUID()));
        poll(poll);

        // then each job has its one result, each race one discarded answer and one audit, the forgery is a dead
        // letter, and the poll's offsets were committed once, in the transaction that carried the dead letter
        for (Attempt a : single) {
            var job = fixture.ledger.lookups().job(a.jobId()).orElseThrow();
            assertEquals(JobStatus.SUCCEEDED, job.status());
            assertEquals(a.id(), job.completedBy());
            assertEquals(AttemptStatus.SUCCEEDED, fixture.ledger.lookups().attempt(a.id()).orElseThrow().status());
            assertEquals(1, fixture.outbox(Topics.JOB_RESULTS.name(), job.id()));
        }
        for (Attempt[] ab : raced) {
            var job = fixture.ledger.lookups().job(ab[0].jobId()).orElseThrow();
            assertEquals(ab[1].id(), job.completedBy());
            assertEquals(ReconcilerFixture.RESULT_B, job.result());
            assertEquals(AttemptStatus.DISCARDED, fixture.ledger.lookups().attempt(ab[0].id()).orElseThrow().status());
            assertEquals(1, fixture.outbox(Topics.JOB_RESULTS.name(), job.id()));
            assertEquals(1, fixture.outbox(Topics.RACE_AUDIT.name(), job.id()));
        }
        assertTrue(deadLetterReason().contains("no attempt"));
        assertTrue(noMoreDeadLetters());
        assertEquals(AttemptStatus.STARTING, fixture.ledger.lookups().attempt(forgedTarget.id()).orElseThrow().status());
        assertTrue(producer.transactionCommitted());
        assertEquals(1, producer.consumerGroupOffsetsHistory().size());
        assertEquals(poll.size(), committedOffset());
    }

    @Test
    void aPollWhoseKafkaTransactionFailsIsAbortedReadAgainAndAppliedOnce() {
        // given a started job and a dead letter to be, and a broker that refuses the first commit
        Attempt a = fixture.startedJob("owner-a");
        List<byte[]> values = List.of(Json.write(ReconcilerFixture.succeeded(a, ReconcilerFixture.RESULT_A).toJson())
                .getBytes(StandardCharsets.UTF_8), "{oops".getBytes(StandardCharsets.UTF_8));
        producer.commitTransactionException = new TimeoutException("broker away");

        // when the poll is handled: the ledger commits, the Kafka transaction does not
        poll(values, List.of(a.jobId(), a.jobId()));

        // then the transaction was aborted with nothing committed, and the consumer is back at the poll's start
        assertTrue(producer.transactionAborted());
        assertTrue(producer.consumerGroupOffsetsHistory().isEmpty());
        assertEquals(0, consumer.position(PARTITION));
        assertEquals(JobStatus.SUCCEEDED, fixture.ledger.lookups().job(a.jobId()).orElseThrow().status());

        // when the broker is back and delivers the same records again from there
        producer.commitTransactionException = null;
        offset = 0;
        poll(values, List.of(a.jobId(), a.jobId()));

        // then the ledger answers the replay as applied (one result queued), one dead letter, offsets committed
        assertEquals(1, fixture.outbox(Topics.JOB_RESULTS.name(), a.jobId()));
        assertTrue(deadLetterReason().contains("not valid JSON"));
        assertTrue(noMoreDeadLetters());
        assertEquals(2, committedOffset());
    }

    @Test
    void pollsShareOneKafkaTransactionUntilItIsDueAndTheLedgerNeverWaitsForIt() {
        // given a loop whose transaction stays open for an hour
        loop = new CompletionConsumer(consumer, producer,
                new CompletionHandler(fixture.ledger, new BillingStore(fixture.database), ProviderGate.ALLOW_ALL, new ReconcilerMetrics()),
                "result-reconciler", Duration.ofHours(1));
        Attempt first = fixture.startedJob("owner-a");
        Attempt second = fixture.startedJob("owner-b");

        // when two polls are handled
        pipe(ReconcilerFixture.succeeded(first, ReconcilerFixture.RESULT_A));
        pipeRaw(second.jobId(), "{oops");
        pipe(ReconcilerFixture.succeeded(second, ReconcilerFixture.RESULT_B));

        // then the ledger has both, and nothing is committed to Kafka yet
        assertEquals(JobStatus.SUCCEEDED, fixture.ledger.lookups().job(first.jobId()).orElseThrow().status());
        assertEquals(JobStatus.SUCCEEDED, fixture.ledger.lookups().job(second.jobId()).orElseThrow().status());
        assertTrue(producer.transactionInFlight());
        assertTrue(producer.consumerGroupOffsetsHistory().isEmpty());

        // when it commits (its time, a rebalance, or shutdown)
        loop.commitOrRewind();

        // then one transaction carries every poll's offsets and the dead letter
        assertTrue(producer.transactionCommitted());
        assertEquals(1, producer.consumerGroupOffsetsHistory().size());
        assertEquals(3, committedOffset());
        assertTrue(deadLetterReason().contains("not valid JSON"));
        assertTrue(noMoreDeadLetters());
    }
}
