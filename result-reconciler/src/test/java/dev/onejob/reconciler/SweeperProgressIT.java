package dev.onejob.reconciler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.onejob.core.db.Database;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The sweeper does not take a worker for vanished while its outcome may still be waiting behind the reconciler: an
 * attempt past its abandon_after stays STARTING as long as a completion produced before that time is not applied on
 * its partition, and is swept once the reconcilers' group has applied past it. The group's progress is moved by hand
 * here (offsets committed for a group of this test's own), on the real broker.
 */
class SweeperProgressIT {
    private static final Database DATABASE = Database.wrap(TestDatabase.shared().dataSource());
    private static final ReconcilerFixture FIXTURE = new ReconcilerFixture(DATABASE);
    private static final String BOOTSTRAP = TestKafka.shared().bootstrapServers();
    private static final String TOPIC = Topics.ATTEMPT_COMPLETIONS.name();

    @Test
    void anOverdueAttemptWaitsForItsPartitionToBeAppliedPastItsAbandonAfter() throws Exception {
        KafkaTopics.ensure(BOOTSTRAP, KafkaTopics.allNames(), 3, (short) 1);
        String group = "sweeper-progress-" + UUID.randomUUID();
        commitAtEnd(group);

        // given an attempt whose abandon_after comes 300 ms after its start, and its worker's completion produced
        // before that, still unapplied by the group
        Attempt attempt = FIXTURE.pendingJob("owner-sweep");
        FIXTURE.ledger.starts().start(attempt.id(), Duration.ofMillis(100), Duration.ofMillis(300), UUID.randomUUID());
        RecordMetadata sent;
        try (KafkaProducer<byte[], byte[]> worker = new KafkaProducer<>(new KafkaConfig(BOOTSTRAP)
                .producer("test-worker-sweep"), new ByteArraySerializer(), new ByteArraySerializer())) {
            sent = worker.send(new ProducerRecord<>(TOPIC, attempt.jobId().toString().getBytes(StandardCharsets.UTF_8),
                    Json.write(ReconcilerFixture.succeeded(attempt, ReconcilerFixture.RESULT_A).toJson())
                            .getBytes(StandardCharsets.UTF_8))).get();
        }
        Thread.sleep(600);

        try (CompletionProgress progress = new CompletionProgress(BOOTSTRAP, group, "sweeper-progress-it")) {
            Sweeper sweeper = new Sweeper(FIXTURE.ledger, new ReconcilerMetrics(), progress::snapshot);
            // the sweeper's partition for the job is the producer's
            assertEquals(sent.partition(), CompletionProgress.Snapshot.partition(attempt.jobId(), 3));

            // when it sweeps while the completion waits: the attempt stays STARTING
            sweeper.sweepOnce();
            assertEquals(AttemptStatus.STARTING, FIXTURE.ledger.lookups().attempt(attempt.id()).orElseThrow().status());

            // when the group has applied past the completion (and the attempt is still STARTING, so the worker
            // really published nothing for it before its abandon_after): it is swept
            commitAtEnd(group);
            sweeper.sweepOnce();
            assertEquals(AttemptStatus.UNKNOWN, FIXTURE.ledger.lookups().attempt(attempt.id()).orElseThrow().status());
        }
    }

    /** Commits {@code group}'s offsets at the end of every partition of attempt-completions. */
    private static void commitAtEnd(String group) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(new KafkaConfig(BOOTSTRAP)
                .consumer(group, group + "-committer"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(TOPIC).stream()
                    .map(p -> new TopicPartition(TOPIC, p.partition())).toList();
            Map<TopicPartition, OffsetAndMetadata> ends = new HashMap<>();
            consumer.endOffsets(partitions).forEach((p, end) -> ends.put(p, new OffsetAndMetadata(end)));
            consumer.assign(partitions);
            consumer.commitSync(ends);
        }
    }
}
