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
        return new OutboxRelay(ingest.database, ingest.databaseConfig, new KafkaConfig(ingest.bootstrap), name,
                new SimpleMeterRegistry(), hooks, lease);
    }

    private List<ConsumerRecord<byte[], byte[]>> commandsOf(UUID jobId) {
        return TopicProbe.await(ingest.bootstrap, Topics.ATTEMPT_COMMANDS.name(),
                r -> jobId.toString().equals(TopicProbe.text(r.key())), 1, Duration.ofSeconds(20));
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
        // given a job whose attempt command is queued
        SubmitOutcome.Created created = newJob();
        UUID jobId = created.job().id();

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

        // then, once its lease runs out, another relay finds the command on the topic and only marks it sent
        drainUntilSent(jobId);
        var commands = commandsOf(jobId);
        assertEquals(1, commands.size(), "read_committed consumers see the command exactly once");
        assertTrue(TopicProbe.text(commands.get(0).value()).contains(created.firstAttempt().id().toString()));
        assertEquals("attempt-commands/" + created.firstAttempt().id(), new String(
                commands.get(0).headers().lastHeader(Headers.EVENT_ID).value()));
    }

    @Test
    void aRelayPausedPastItsLeaseCannotPublishRowsAnotherRelayTookOver() throws Exception {
        // given a job whose attempt command is queued, and a relay (lease 500 ms) that stalls right before its commit
        SubmitOutcome.Created created = newJob();
        UUID jobId = created.job().id();
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
        assertEquals(1, commandsOf(jobId).size(), "read_committed consumers see the command exactly once");
    }

    @Test
    void aRowTheBrokerRefusesIsParkedWithItsReasonAndTheRowsBehindItFlowOn() {
        // given a row too large for any topic (over the producers' request limit, the largest answer onejob carries
        // and its envelope), then a good one
        UUID poisonKey = UUID.randomUUID();
        ingest.database.inTransaction(c -> OutboxStore.enqueue(c, Topics.JOB_RESULTS, "poison-" + poisonKey,
                poisonKey.toString(), Json.object().put("blob", "x".repeat(
                        KafkaConfig.MAX_ANSWER_RECORD_BYTES + 1024 * 1024)), 1));
        SubmitOutcome.Created created = newJob();

        // when relays run
        drainUntilSent(created.job().id());

        // then the good row went out, and the poison one is set aside with the broker's reason, not retried
        assertEquals(1, commandsOf(created.job().id()).size());
        var parked = ingest.database.inTransaction(c -> OutboxStatus.parked(c, 100)).stream()
                .filter(p -> p.messageKey().equals(poisonKey.toString())).toList();
        assertEquals(1, parked.size());
        assertTrue(parked.get(0).reason().contains("RecordTooLargeException"), parked.get(0).reason());
        assertEquals(1, unsentFor(poisonKey), "parked, not sent");
    }

    @Test
    void aRelayKilledBeforeTheKafkaCommitShowsNothingAndTheCommandIsPublishedLaterOnce() {
        SubmitOutcome.Created created = newJob();
        UUID jobId = created.job().id();

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
        assertEquals(1, commandsOf(jobId).size(), "the aborted copy is invisible; the later one is seen once");
    }

    @Test
    void twoRelaysClaimingAtOnceSendEachRowOnce() throws Exception {
        // given 200 queued commands and no relay running
        List<UUID> jobs = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            jobs.add(newJob().job().id());
        }

        // when two relays drain the outbox at the same time
        OutboxRelay a = relay("relay-a-" + UUID.randomUUID(), OutboxRelay.Hooks.NONE, OutboxRelay.DEFAULT_LEASE);
        OutboxRelay b = relay("relay-b-" + UUID.randomUUID(), OutboxRelay.Hooks.NONE, OutboxRelay.DEFAULT_LEASE);
        var sent = StartGate.race(List.<Callable<Integer>>of(
                () -> drain(a), () -> drain(b)));
        a.close();
        b.close();

        // then together they sent every row, each exactly once
        Set<String> wanted = new HashSet<>();
        jobs.forEach(j -> wanted.add(j.toString()));
        var commands = TopicProbe.await(ingest.bootstrap, Topics.ATTEMPT_COMMANDS.name(),
                r -> wanted.contains(TopicProbe.text(r.key())), 200, Duration.ofSeconds(30));
        assertEquals(200, commands.size());
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
