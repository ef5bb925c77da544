package dev.onejob.reconciler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.db.Database;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.testing.Await;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TestKafka;
import dev.onejob.testing.TopicProbe;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The reconciler publishes its own output: with no ingest instance (and so no other relay) running, the failover
 * command and the job result it writes to the outbox reach Kafka through the relay it hosts.
 */
class ReconcilerRelayIT {
    private static final Database DATABASE = Database.wrap(TestDatabase.shared().dataSource());
    private static final ReconcilerFixture FIXTURE = new ReconcilerFixture(DATABASE);
    private static final String BOOTSTRAP = TestKafka.shared().bootstrapServers();

    @Test
    void failoverCommandsAndJobResultsReachKafkaWithNoIngestRunning() throws Exception {
        KafkaTopics.ensure(BOOTSTRAP, KafkaTopics.allNames(), 3, (short) 1);
        Attempt primary = FIXTURE.startedJob("owner-relay");
        String job = primary.jobId().toString();
        ResultReconciler reconciler = ReconcilerIT.startReconciler("result-reconciler-relay-" + UUID.randomUUID(),
                true);
        try (KafkaProducer<byte[], byte[]> worker = new KafkaProducer<>(new KafkaConfig(BOOTSTRAP)
                .producer("test-worker-relay"), new ByteArraySerializer(), new ByteArraySerializer())) {
            // when the primary fails: the reconciler fails over to backup, writing its command to the outbox
            send(worker, ReconcilerFixture.failed(primary, "http_500", true).toJson());
            Await.until(Duration.ofSeconds(60), "the failover attempt",
                    () -> FIXTURE.ledger.lookups().attempts(primary.jobId()).size() == 2);
            Attempt backup = FIXTURE.ledger.lookups().attempts(primary.jobId()).get(1);

            // then its attempt command is on attempt-commands (read_committed), published by the reconciler's relay
            var commands = TopicProbe.await(BOOTSTRAP, Topics.ATTEMPT_COMMANDS.name(),
                    r -> job.equals(TopicProbe.text(r.key()))
                            && TopicProbe.text(r.value()).contains(backup.id().toString()), 1, Duration.ofSeconds(30));
            assertEquals(1, commands.size());

            // and when backup succeeds, the job's result is on job-results
            FIXTURE.ledger.starts().start(backup.id(), Duration.ofSeconds(30));
            send(worker, ReconcilerFixture.succeeded(backup, ReconcilerFixture.RESULT_B).toJson());
            var results = TopicProbe.await(BOOTSTRAP, Topics.JOB_RESULTS.name(),
                    r -> job.equals(TopicProbe.text(r.key())), 1, Duration.ofSeconds(60));
            assertEquals("SUCCEEDED", Json.parse(TopicProbe.text(results.get(0).value())).path("status").asText());
            Await.until(Duration.ofSeconds(30), "every outbox row of the job marked sent", () -> FIXTURE.count(
                    "SELECT count(*) FROM outbox WHERE message_key = ? AND sent_at IS NULL", job) == 0);
        } finally {
            reconciler.close();
        }
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, JsonNode completion)
            throws Exception {
        String key = completion.path("job_id").asText();
        producer.send(new ProducerRecord<>(Topics.ATTEMPT_COMPLETIONS.name(), key.getBytes(StandardCharsets.UTF_8),
                Json.write(completion).getBytes(StandardCharsets.UTF_8))).get();
    }
}
