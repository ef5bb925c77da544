package dev.onejob.reconciler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.core.ledger.JobStatus;
import dev.onejob.core.ledger.NewJob;
import dev.onejob.core.ledger.ProviderGate;
import dev.onejob.core.ledger.SubmitOutcome;
import dev.onejob.core.service.Loops;
import dev.onejob.testing.Await;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TestKafka;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The reconciler as it runs: Kafka Streams with exactly_once_v2 on the real broker, the ledger in PostgreSQL. */
class ReconcilerIT {
    private static final Database DATABASE = Database.wrap(TestDatabase.shared().dataSource());
    private static final ReconcilerFixture FIXTURE = new ReconcilerFixture(DATABASE);
    private static final String BOOTSTRAP = TestKafka.shared().bootstrapServers();
    private static KafkaProducer<byte[], byte[]> producer;
    private static ResultReconciler reconciler;

    @BeforeAll
    static void start() throws Exception {
        KafkaTopics.ensure(BOOTSTRAP, KafkaTopics.allNames(), 3, (short) 1);
        producer = new KafkaProducer<>(new KafkaConfig(BOOTSTRAP).producer("test-worker"), new ByteArraySerializer(),
                new ByteArraySerializer());
        reconciler = startReconciler(ReconcilerConfig.APPLICATION_ID);
    }

    @AfterAll
    static void stop() {
        reconciler.close();
        producer.close();
    }

    static ResultReconciler startReconciler(String applicationId) throws Exception {
        return startReconciler(applicationId, false);
    }

    /** A reconciler on the test broker and database; {@code relay}: whether it runs an outbox relay too. */
    static ResultReconciler startReconciler(String applicationId, boolean relay) throws Exception {
        TestDatabase db = TestDatabase.shared();
        ReconcilerConfig config = new ReconcilerConfig(new DatabaseConfig(db.jdbcUrl(), db.user(), null, 4),
                new KafkaConfig(BOOTSTRAP), applicationId, Files.createTempDirectory("streams"),
                Path.of("../config/providers.yaml"), Path.of("../config/contracts"), Duration.ofMillis(200), 1, 0, null,
                Duration.ofDays(7), relay, Duration.ZERO, applicationId + "-" + UUID.randomUUID());
        ResultReconciler started = new ResultReconciler(config, DATABASE, ProviderGate.ALLOW_ALL,
                Loops.REPORT_ONLY);
        started.start();
        Await.until(Duration.ofSeconds(60), "the reconciler to run", () -> started.state() == KafkaStreams.State.RUNNING);
        return started;
    }

    private static Future<?> publish(AttemptCompletion completion) {
        return producer.send(new ProducerRecord<>(Topics.ATTEMPT_COMPLETIONS.name(),
                completion.jobId().toString().getBytes(StandardCharsets.UTF_8),
                Json.write(completion.toJson()).getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void twoCompletionsForOneJobPublishedTogether500TimesGiveOneWinnerAndOneAuditPerLoser() throws Exception {
        // given 500 jobs, each with A cancelled out of band and B started
        List<Attempt[]> jobs = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            jobs.add(FIXTURE.cancelledThenFallback());
        }

        // when both answers of every job are published at once, from two threads
        CountDownLatch go = new CountDownLatch(1);
        Thread first = new Thread(() -> sendAll(go, jobs, 0, ReconcilerFixture.RESULT_A));
        Thread second = new Thread(() -> sendAll(go, jobs, 1, ReconcilerFixture.RESULT_B));
        first.start();
        second.start();
        go.countDown();
        first.join();
        second.join();

        // then every job has exactly one result, B's, one job-results event and one race-audit event
        Await.until(Duration.ofSeconds(120), "all 1000 completions to be applied", () -> jobs.stream().allMatch(ab ->
                FIXTURE.ledger.lookups().attempt(ab[0].id()).orElseThrow().status() == AttemptStatus.DISCARDED
                        && FIXTURE.ledger.lookups().job(ab[0].jobId()).orElseThrow().status() == JobStatus.SUCCEEDED));
        for (Attempt[] ab : jobs) {
            var job = FIXTURE.ledger.lookups().job(ab[0].jobId()).orElseThrow();
            assertEquals(ab[1].id(), job.completedBy());
            assertEquals(ReconcilerFixture.RESULT_B, job.result());
            assertEquals(1, FIXTURE.outbox(Topics.JOB_RESULTS.name(), job.id()));
            assertEquals(1, FIXTURE.outbox(Topics.RACE_AUDIT.name(), job.id()));
        }
    }

    private static void sendAll(CountDownLatch go, List<Attempt[]> jobs, int which,
                                JsonNode result) {
        try {
            go.await();
            List<Future<?>> acks = new ArrayList<>();
            for (Attempt[] ab : jobs) {
                acks.add(publish(ReconcilerFixture.succeeded(ab[which], result)));
            }
            for (Future<?> ack : acks) {
                ack.get();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void replayingEveryCompletionFromTheStartChangesNothing() throws Exception {
        // given jobs the running reconciler finished: a win with a late loser, a failover that ended FAILED
        Attempt[] ab = FIXTURE.cancelledThenFallback();
        publish(ReconcilerFixture.succeeded(ab[1], ReconcilerFixture.RESULT_B)).get();
        publish(ReconcilerFixture.succeeded(ab[0], ReconcilerFixture.RESULT_A)).get();
        Attempt primary = FIXTURE.startedJob("owner-r");
        publish(ReconcilerFixture.failed(primary, "http_500", true)).get();
        Await.until(Duration.ofSeconds(60), "the first pass", () ->
                FIXTURE.ledger.lookups().attempt(ab[0].id()).orElseThrow().status() == AttemptStatus.DISCARDED
                        && FIXTURE.ledger.lookups().attempts(primary.jobId()).size() == 2);
        Attempt backup = FIXTURE.ledger.lookups().attempts(primary.jobId()).get(1);
        FIXTURE.ledger.starts().start(backup.id(), Duration.ofSeconds(30));
        publish(ReconcilerFixture.failed(backup, "contract_violation", true)).get();
        Await.until(Duration.ofSeconds(60), "the job to fail", () ->
                FIXTURE.ledger.lookups().job(primary.jobId()).orElseThrow().status() == JobStatus.FAILED);
        long outboxBefore = FIXTURE.count("SELECT count(*) FROM outbox");

        // when a second reconciler with its own application id replays attempt-completions from the beginning
        // (what a crash between the PostgreSQL commit and the Kafka commit amounts to, for every record at once)
        String replayId = "result-reconciler-replay-" + UUID.randomUUID();
        ResultReconciler replay = startReconciler(replayId);
        try {
            Await.until(Duration.ofSeconds(90), "the replay to reach the end of attempt-completions",
                    () -> caughtUp(replayId));
            // then no second result, no second audit record, no second failover attempt
            assertEquals(outboxBefore, FIXTURE.count("SELECT count(*) FROM outbox"));
            assertEquals(2, FIXTURE.ledger.lookups().attempts(primary.jobId()).size());
            assertEquals(1, FIXTURE.outbox(Topics.JOB_RESULTS.name(), ab[0].jobId()));
            assertEquals(1, FIXTURE.outbox(Topics.RACE_AUDIT.name(), ab[0].jobId()));
            assertEquals(1, FIXTURE.outbox(Topics.JOB_RESULTS.name(), primary.jobId()));
        } finally {
            replay.close();
        }
    }

    /** True when the group's committed offsets reached the end of every attempt-completions partition. */
    private static boolean caughtUp(String groupId) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP))) {
            Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < 3; p++) {
                latest.put(new TopicPartition(Topics.ATTEMPT_COMPLETIONS.name(), p), OffsetSpec.latest());
            }
            var ends = admin.listOffsets(latest).all().get();
            return ends.entrySet().stream().allMatch(e -> e.getValue().offset() == 0
                    || (committed.get(e.getKey()) != null && committed.get(e.getKey()).offset() >= e.getValue().offset()));
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void theSweeperTurnsAnOverdueStartingAttemptUnknownWithTwoReconcilersRunning() throws Exception {
        ResultReconciler second = startReconciler(ReconcilerConfig.APPLICATION_ID);
        try {
            // given an attempt whose worker died right after STARTING, with a 300 ms soft timeout
            var fresh = (SubmitOutcome.Created) FIXTURE.ledger.submissions().submit(new NewJob(
                    "owner-s", "sweep-" + UUID.randomUUID(), Json.parse("{\"contract\":\"sentiment\"}"), "sentiment",
                    "primary", List.of()));
            FIXTURE.ledger.starts().start(fresh.firstAttempt().id(), Duration.ofMillis(300));

            // then both sweepers run and the attempt ends UNKNOWN (never FAILED, never PENDING), the job UNKNOWN
            Await.until(Duration.ofSeconds(20), "the sweeper", () -> FIXTURE.ledger.lookups().attempt(fresh.firstAttempt().id())
                    .orElseThrow().status() == AttemptStatus.UNKNOWN);
            assertEquals(JobStatus.UNKNOWN, FIXTURE.ledger.lookups().job(fresh.job().id()).orElseThrow().status());
            assertEquals(1, FIXTURE.ledger.lookups().attempts(fresh.job().id()).size());
        } finally {
            second.close();
        }
    }

    @Test
    void theOpsEndpointReportsHealthAndCountsLostRacesByProviderPair() throws Exception {
        // given a race lost by primary to backup
        Attempt[] ab = FIXTURE.cancelledThenFallback();
        publish(ReconcilerFixture.succeeded(ab[1], ReconcilerFixture.RESULT_B)).get();
        publish(ReconcilerFixture.succeeded(ab[0], ReconcilerFixture.RESULT_A)).get();
        Await.until(Duration.ofSeconds(60), "the loss to be recorded", () ->
                FIXTURE.ledger.lookups().attempt(ab[0].id()).orElseThrow().status() == AttemptStatus.DISCARDED);

        // then /health is ready and /metrics counts it under its provider pair. Ready, not at once: an
        // earlier test's second reconciler leaving the group sets off a rebalance, during which /health
        // rightly answers 503 "Kafka Streams is REBALANCING" (a clean-clone CI run saw exactly that)
        var http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + reconciler.metricsPort();
        String[] lastHealth = {"no answer"};
        try {
            Await.until(Duration.ofSeconds(60), "/health to answer 200", () -> {
                try {
                    var health = http.send(HttpRequest.newBuilder(URI.create(base + "/health"))
                            .build(), HttpResponse.BodyHandlers.ofString());
                    lastHealth[0] = health.statusCode() + " " + health.body();
                    return health.statusCode() == 200;
                } catch (IOException e) {
                    lastHealth[0] = e.toString();
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    lastHealth[0] = e.toString();
                    return false;
                }
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; last answer: " + lastHealth[0], e);
        }
        String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Assertions.assertTrue(metrics.contains(
                "onejob_lost_races_total{loser=\"primary\",reason=\"attempt-cancelled\",winner=\"backup\"}"), metrics);
    }
}
