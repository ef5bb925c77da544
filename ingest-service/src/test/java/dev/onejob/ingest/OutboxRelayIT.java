package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.NewJob;
import dev.onejob.core.ledger.SubmitOutcome;
import dev.onejob.core.outbox.OutboxEvent;
import dev.onejob.core.outbox.OutboxRelay;
import dev.onejob.core.outbox.OutboxStatus;
import dev.onejob.core.outbox.OutboxStore;
import dev.onejob.testing.Await;
import dev.onejob.testing.StartGate;
import dev.onejob.testing.TopicProbe;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OutboxRelayIT {
    private final IngestFixture ingest = IngestFixture.shared();

    @BeforeEach
    void stopTheBackgroundRelay() throws InterruptedException {
        ingest.stopRelay();
    }

    @AfterEach
    void restartTheBackgroundRelay() {
        ingest.startRelay();
    }

    private SubmitOutcome.Created newJob() {
        Ledger ledger = ingest.ledger;
        return (SubmitOutcome.Created) ledger.submissions().submit(new NewJob("alice", "relay-" + UUID.randomUUID(),
                Json.parse(IngestFixture.request("x")), "sentiment", "primary", List.of("backup")));
    }

    private long unsentFor(UUID jobId) {
        return ingest.database.inTransaction(c -> {
            try (var s = c.prepareStatement("SELECT count(*) FROM outbox WHERE message_key = ? AND sent_at IS NULL")) {
                s.setString(1, jobId.toString());
                try (var rows = s.executeQuery()) {
                    rows.next();
                    return rows.getLong(1);
                }
            }
        });
    }

    private OutboxRelay relay(String name, OutboxRelay.Hooks hooks, Duration lease) {
        return new OutboxRelay(ingest.database, new KafkaConfig(ingest.bootstrap), name,
                new SimpleMeterRegistry(), hooks, lease);
    }

    private List<ConsumerRecord<byte[], byte[]>> commandsOf(UUID jobId) {
        return TopicProbe.await(ingest.bootstrap, Topics.ATTEMPT_COMMANDS.name(),
                r -> jobId.toString().equals(TopicProbe.text(r.key())), 1, Duration.ofSeconds(20));
    }

    /** Queues a race record for {@code key}: a topic the relay publishes in Kafka transactions, exactly once. */
    private UUID queueRaceRecord() {
        UUID key = UUID.randomUUID();
        ingest.database.inTransaction(c -> OutboxStore.enqueue(c, Topics.RACE_AUDIT, "relay-" + key, key.toString(),
                Json.object().put("relay_test", key.toString()), 1));
        return key;
    }

    private List<ConsumerRecord<byte[], byte[]>> raceRecordsOf(UUID key) {
        return TopicProbe.await(ingest.bootstrap, Topics.RACE_AUDIT.name(),
                r -> key.toString().equals(TopicProbe.text(r.key())), 1, Duration.ofSeconds(20));
    }

    private void drainUntilSent(UUID jobId) {
        try (OutboxRelay healthy = relay("healthy-relay-" + UUID.randomUUID(), OutboxRelay.Hooks.NONE,
                OutboxRelay.DEFAULT_LEASE)) {
            Await.until(Duration.ofSeconds(30), "the row to be sent", () -> {
                healthy.relayOnce();
                return unsentFor(jobId) == 0;
            });
        }
    }

    @Test
    void aRelayKilledAfterTheKafkaCommitAndBeforeTheMarkIsNotFollowedByASecondCopy() {
        // given a race record queued (its topic is published in Kafka transactions)
        UUID jobId = queueRaceRecord();

        // when a relay (lease 1 s) commits the Kafka transaction and dies before marking the row sent
        try (OutboxRelay crashing = relay("crash-after-commit-" + UUID.randomUUID(), new OutboxRelay.Hooks() {
            @Override
            public void afterKafkaCommit(List<OutboxEvent> events) {
                throw new IllegalStateException("killed between the Kafka commit and the mark");
            }
        }, Duration.ofSeconds(1))) {
            // (a Kafka transaction the broker itself refuses is aborted and its rows released: that is the other
            // crash; try again until the commit went through and the relay died after it)
            AtomicBoolean crashedAfterCommit = new AtomicBoolean();
            Await.until(Duration.ofSeconds(30), "a relay dying right after its Kafka commit", () -> {
                try {
                    crashing.relayOnce();
                } catch (IllegalStateException e) {
                    crashedAfterCommit.set(e.getMessage().contains("killed between the Kafka commit"));
                } catch (KafkaException e) {
                    return false;
                }
                return crashedAfterCommit.get();
            });
        }
        assertEquals(1, unsentFor(jobId));

        // then, once its lease runs out, another relay finds the record on the topic and only marks it sent
        drainUntilSent(jobId);
        var records = raceRecordsOf(jobId);
        assertEquals(1, records.size(), "read_committed consumers see the record exactly once");
        assertTrue(TopicProbe.text(records.get(0).value()).contains(jobId.toString()));
        assertEquals("race-audit/relay-" + jobId, new String(
                records.get(0).headers().lastHeader(Headers.EVENT_ID).value()));
    }

    @Test
    void aRelayKilledAfterACommandIsAcknowledgedSendsItAgainUnderTheSameEventId() {
        // given a job whose attempt command is queued (commands go without a Kafka transaction: at least once)
        SubmitOutcome.Created created = newJob();
        UUID jobId = created.job().id();

        // when a relay (lease 1 s) has the command acknowledged and dies before marking the row sent
        try (OutboxRelay crashing = relay("crash-after-ack-" + UUID.randomUUID(), new OutboxRelay.Hooks() {
            @Override
            public void afterKafkaCommit(List<OutboxEvent> events) {
                if (!events.isEmpty()) {
                    throw new IllegalStateException("killed between the acknowledgement and the mark");
                }
            }
        }, Duration.ofSeconds(1))) {
            assertThrows(IllegalStateException.class, crashing::relayOnce);
        }
        assertEquals(1, unsentFor(jobId));

        // then the next relay sends it again once the lease runs out: two copies of one event, which a worker
        // tells apart by the attempt's state (the start is a conditional write; AttemptWorkerIT plays redelivery)
        drainUntilSent(jobId);
        var commands = TopicProbe.await(ingest.bootstrap, Topics.ATTEMPT_COMMANDS.name(),
                r -> jobId.toString().equals(TopicProbe.text(r.key())), 2, Duration.ofSeconds(20));
        assertEquals(2, commands.size());
        for (var command : commands) {
            assertEquals("attempt-commands/" + created.firstAttempt().id(), new String(
                    command.headers().lastHeader(Headers.EVENT_ID).value()));
        }
    }

    @Test
    void aRelayPausedPastItsLeaseCannotPublishRowsAnotherRelayTookOver() throws Exception {
        // given a race record queued, and a relay (lease 500 ms) that stalls right before its commit
        UUID jobId = queueRaceRecord();
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        try (OutboxRelay paused = relay("paused-" + UUID.randomUUID(), new OutboxRelay.Hooks() {
            @Override
            public void beforeKafkaCommit(List<OutboxEvent> events) {
                stalled.countDown();
                try {
                    resume.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, Duration.ofMillis(500))) {
            var first = CompletableFuture.supplyAsync(paused::relayOnce);
            assertTrue(stalled.await(20, TimeUnit.SECONDS));

            // when its lease runs out, another relay takes the row over and publishes it (it retries until the lease
            // has run out and the row is sent), then the first wakes up
            drainUntilSent(jobId);
            resume.countDown();
            int settledByThePausedOne = first.get(30, TimeUnit.SECONDS);

            // then the paused relay found the row taken over and published nothing: one copy on the topic
            assertEquals(0, settledByThePausedOne);
        }
        // the paused relay's transaction is settled by now (aborted); the probe reads on past the first copy
        assertEquals(1, raceRecordsOf(jobId).size(), "read_committed consumers see the record exactly once");
    }

    @Test
    void aRowTheBrokerRefusesIsParkedWithItsReasonAndTheRowsBehindItFlowOn() {
        // given a row too large for any topic (over the producers' request limit, the largest answer onejob carries
        // and its envelope), then a good one
        UUID poisonKey = UUID.randomUUID();
        // on each path: a result (sent in a transaction) and a command (sent without one)
        UUID poisonCommandKey = UUID.randomUUID();
        ingest.database.inTransaction(c -> {
            OutboxStore.enqueue(c, Topics.JOB_RESULTS, "poison-" + poisonKey, poisonKey.toString(),
                    Json.object().put("blob", "x".repeat(KafkaConfig.MAX_ANSWER_RECORD_BYTES + 1024 * 1024)), 1);
            return OutboxStore.enqueue(c, Topics.ATTEMPT_COMMANDS, "poison-" + poisonCommandKey,
                    poisonCommandKey.toString(), Json.object().put("blob", "x".repeat(
                            KafkaConfig.MAX_ANSWER_RECORD_BYTES + 1024 * 1024)), 1);
        });
        SubmitOutcome.Created created = newJob();

        // when relays run
        drainUntilSent(created.job().id());

        // then the good row went out, and each poison one is set aside with the broker's reason, not retried
        assertEquals(1, commandsOf(created.job().id()).size());
        for (UUID key : List.of(poisonKey, poisonCommandKey)) {
            var parked = ingest.database.inTransaction(c -> OutboxStatus.parked(c, 100)).stream()
                    .filter(p -> p.messageKey().equals(key.toString())).toList();
            assertEquals(1, parked.size(), key.toString());
            assertTrue(parked.get(0).reason().contains("RecordTooLargeException"), parked.get(0).reason());
            assertEquals(1, unsentFor(key), "parked, not sent");
        }
    }

    @Test
    void aRelayKilledBeforeTheKafkaCommitShowsNothingAndTheRecordIsPublishedLaterOnce() {
        UUID jobId = queueRaceRecord();

        try (OutboxRelay crashing = relay("crash-before-commit-" + UUID.randomUUID(), new OutboxRelay.Hooks() {
            @Override
            public void beforeKafkaCommit(List<OutboxEvent> events) {
                throw new IllegalStateException("killed inside the Kafka transaction");
            }
        }, OutboxRelay.DEFAULT_LEASE)) {
            assertThrows(IllegalStateException.class, crashing::relayOnce);
        }
        assertEquals(1, unsentFor(jobId));

        drainUntilSent(jobId);
        assertEquals(1, raceRecordsOf(jobId).size(), "the aborted copy is invisible; the later one is seen once");
    }

    @Test
    void twoRelaysClaimingAtOnceSendEachRowOnce() throws Exception {
        // given 100 queued commands and 100 race records, and no relay running
        List<UUID> jobs = new ArrayList<>();
        List<UUID> races = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            jobs.add(newJob().job().id());
            races.add(queueRaceRecord());
        }

        // when two relays drain the outbox at the same time
        OutboxRelay a = relay("relay-a-" + UUID.randomUUID(), OutboxRelay.Hooks.NONE, OutboxRelay.DEFAULT_LEASE);
        OutboxRelay b = relay("relay-b-" + UUID.randomUUID(), OutboxRelay.Hooks.NONE, OutboxRelay.DEFAULT_LEASE);
        var sent = StartGate.race(List.<Callable<Integer>>of(
                () -> drain(a), () -> drain(b)));
        a.close();
        b.close();

        // then together they sent every row, each exactly once (the lease gives each row to one relay; a command
        // goes twice only when a relay dies between its acknowledgement and its mark)
        Set<String> wanted = new HashSet<>();
        jobs.forEach(j -> wanted.add(j.toString()));
        races.forEach(r -> wanted.add(r.toString()));
        var commands = TopicProbe.await(ingest.bootstrap, Topics.ATTEMPT_COMMANDS.name(),
                r -> wanted.contains(TopicProbe.text(r.key())), 100, Duration.ofSeconds(30));
        var records = TopicProbe.await(ingest.bootstrap, Topics.RACE_AUDIT.name(),
                r -> wanted.contains(TopicProbe.text(r.key())), 100, Duration.ofSeconds(30));
        assertEquals(100, commands.size());
        assertEquals(100, records.size());
        assertTrue(sent.get(0) + sent.get(1) >= 200);
    }

    private static int drain(OutboxRelay relay) {
        int total = 0;
        int sent;
        while ((sent = relay.relayOnce()) > 0) {
            total += sent;
        }
        return total;
    }
}
