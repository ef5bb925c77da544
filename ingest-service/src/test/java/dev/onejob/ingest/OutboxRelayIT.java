package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.core.ledger.NewJob;
import dev.onejob.core.ledger.SubmitOutcome;
import dev.onejob.core.json.Json;
import dev.onejob.core.outbox.OutboxStore;
import dev.onejob.testing.TopicProbe;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
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
        LedgerStore ledger = ingest.ledger;
        return (SubmitOutcome.Created) ledger.submit(new NewJob("alice", "relay-" + UUID.randomUUID(),
                Json.parse(IngestFixture.request("x")), "sentiment", "primary", List.of("backup")));
    }

    private long unsentFor(UUID jobId) {
        return ingest.database.inTransaction(c -> OutboxStore.eventsFor(c, Topics.ATTEMPT_COMMANDS.name(),
                jobId.toString()).size() == 0 ? 0L : countUnsent(c, jobId));
    }

    private static long countUnsent(java.sql.Connection c, UUID jobId) throws java.sql.SQLException {
        try (var s = c.prepareStatement("SELECT count(*) FROM outbox WHERE message_key = ? AND sent_at IS NULL")) {
            s.setString(1, jobId.toString());
            try (var rows = s.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    @Test
    void aRelayKilledBetweenPublishAndMarkResendsTheCommandAndNeverLosesIt() {
        // given a job whose attempt command is queued
        SubmitOutcome.Created created = newJob();
        UUID jobId = created.job().id();

        // when a relay publishes the batch and dies before marking it sent
        OutboxRelay crashing = new OutboxRelay(ingest.database, ingest.databaseConfig, new KafkaConfig(ingest.bootstrap),
                "crashing-relay", new IngestMetrics(), events -> {
                    throw new IllegalStateException("killed between publish and mark");
                });
        assertThrows(RuntimeException.class, crashing::relayOnce);
        crashing.close();

        // then the row is still unsent, and a healthy relay sends it again
        assertEquals(1, unsentFor(jobId));
        OutboxRelay healthy = new OutboxRelay(ingest.database, ingest.databaseConfig, new KafkaConfig(ingest.bootstrap),
                "healthy-relay", new IngestMetrics(), OutboxRelay.AfterPublish.NOTHING);
        while (healthy.relayOnce() > 0) {
            // drain everything queued while the background relay was stopped
        }
        healthy.close();
        assertEquals(0, unsentFor(jobId));
        var commands = TopicProbe.await(ingest.bootstrap, Topics.ATTEMPT_COMMANDS.name(),
                r -> jobId.toString().equals(TopicProbe.text(r.key())), 2, Duration.ofSeconds(20));
        assertEquals(2, commands.size(), "published once by the crashed relay and once again, never zero times");
        assertTrue(commands.stream().allMatch(r -> TopicProbe.text(r.value())
                .contains(created.firstAttempt().id().toString())));
        assertEquals("attempt-commands/" + created.firstAttempt().id(), new String(
                commands.get(0).headers().lastHeader(OutboxStore.EVENT_ID_HEADER).value()));
    }

    @Test
    void twoRelaysClaimingAtOnceSendEachRowOnce() throws Exception {
        // given 200 queued commands and no relay running
        List<UUID> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            jobs.add(newJob().job().id());
        }

        // when two relays drain the outbox at the same time
        OutboxRelay a = new OutboxRelay(ingest.database, ingest.databaseConfig, new KafkaConfig(ingest.bootstrap),
                "relay-a", new IngestMetrics(), OutboxRelay.AfterPublish.NOTHING);
        OutboxRelay b = new OutboxRelay(ingest.database, ingest.databaseConfig, new KafkaConfig(ingest.bootstrap),
                "relay-b", new IngestMetrics(), OutboxRelay.AfterPublish.NOTHING);
        var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        var sent = dev.onejob.testing.StartGate.race(pool, List.<java.util.concurrent.Callable<Integer>>of(
                () -> drain(a), () -> drain(b)));
        pool.shutdown();
        a.close();
        b.close();

        // then together they sent every row, each exactly once
        java.util.Set<String> wanted = new java.util.HashSet<>();
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
