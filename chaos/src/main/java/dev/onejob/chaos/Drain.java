package dev.onejob.chaos;

import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.infra.ScratchDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Waits, after the load, until the pipeline has nothing left in hand: no attempt PENDING or STARTING, no job QUEUED or
 * RUNNING, no unsent outbox row, and every consumer group caught up with the last committed record of its topics;
 * all of it twice in a row, five seconds apart. UNKNOWN attempts may stay: they await an operator. Gives up after
 * {@code timeout} and says what was still pending (the checker then reports it as stuck).
 */
record Drain(ScratchDatabase database, KafkaConfig kafka) {
    /** Empty when drained, else what was still pending at the timeout. */
    String await(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String pending = "not checked yet";
        int quietInARow = 0;
        while (System.nanoTime() < deadline) {
            pending = pending();
            quietInARow = pending.isEmpty() ? quietInARow + 1 : 0;
            if (quietInARow == 2) {
                return "";
            }
            Thread.sleep(5_000);
        }
        return pending;
    }

    private String pending() {
        StringBuilder pending = new StringBuilder();
        try {
            long live = database.count("SELECT count(*) FROM attempts WHERE status IN ('PENDING', 'STARTING')");
            long jobs = database.count("SELECT count(*) FROM jobs WHERE status IN ('QUEUED', 'RUNNING')");
            long outbox = database.count("SELECT count(*) FROM outbox WHERE sent_at IS NULL");
            append(pending, live, "attempts PENDING or STARTING");
            append(pending, jobs, "jobs QUEUED or RUNNING");
            append(pending, outbox, "unsent outbox rows");
        } catch (SQLException e) {
            pending.append("database: ").append(e.getMessage()).append("; ");
        }
        try {
            append(pending, lag(), "records not yet consumed");
        } catch (Exception e) {
            pending.append("kafka: ").append(e.getMessage()).append("; ");
        }
        return pending.toString();
    }

    private static void append(StringBuilder pending, long count, String what) {
        if (count > 0) {
            pending.append(count).append(' ').append(what).append("; ");
        }
    }

    /**
     * Committed records that a consumer group has not consumed yet, over every group. An offset behind the end is
     * not enough: on a topic written in transactions the end is past the commit markers (and aborted records), which
     * no consumer ever gets; so the partition is read, read_committed, from the group's offset to its end, and only
     * records that come back count.
     */
    private long lag() throws Exception {
        try (Admin admin = Admin.create(kafka.admin("chaos-drain"))) {
            Map<TopicPartition, Long> behind = new HashMap<>();
            for (ConsumerGroupListing group : admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS)) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group.groupId())
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                committed.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest,
                        new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(30, TimeUnit.SECONDS);
                for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : committed.entrySet()) {
                    if (entry.getValue() != null && ends.get(entry.getKey()).offset() > entry.getValue().offset()) {
                        behind.merge(entry.getKey(), entry.getValue().offset(), Math::min);
                    }
                }
            }
            return behind.isEmpty() ? 0 : recordsAfter(behind);
        }
    }

    private long recordsAfter(Map<TopicPartition, Long> from) {
        Map<String, Object> props = kafka.common();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(from.keySet());
            from.forEach(consumer::seek);
            Map<TopicPartition, Long> ends = consumer.endOffsets(from.keySet(), Duration.ofSeconds(30));
            long records = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline && from.keySet().stream()
                    .anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                records += consumer.poll(Duration.ofMillis(500)).count();
            }
            return records;
        }
    }
}
