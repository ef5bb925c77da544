package dev.onejob.chaos;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import dev.onejob.core.kafka.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Waits, after the load, until the pipeline has nothing left in hand: no attempt PENDING or STARTING, no job QUEUED or
 * RUNNING, no unsent outbox row, and every consumer group caught up with the last committed record of its topics;
 * all of it twice in a row, five seconds apart. UNKNOWN attempts may stay: they await an operator. Gives up after
 * {@code timeout} and says what was still pending (the checker then reports it as stuck).
 */
final class Drain {
    private final ChaosDatabase database;
    private final String bootstrapServers;

    Drain(ChaosDatabase database, String bootstrapServers) {
        this.database = database;
        this.bootstrapServers = bootstrapServers;
    }

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
        } catch (java.sql.SQLException e) {
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

    /** Committed records that a consumer group has not consumed yet, over every group. */
    private long lag() throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (Admin admin = Admin.create(props)) {
            long lag = 0;
            for (ConsumerGroupListing group : admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS)) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group.groupId())
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                committed.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest,
                        new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(30, TimeUnit.SECONDS);
                for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : committed.entrySet()) {
                    if (entry.getValue() != null && !entry.getKey().topic().contains("-changelog")
                            && !entry.getKey().topic().contains("-repartition")) {
                        // Consumers commit record offset + 1; on a topic written in transactions the end offset is
                        // past the last commit marker, one more, so one is tolerated there (job-requests has none).
                        long markers = entry.getKey().topic().equals(Topics.JOB_REQUESTS.name()) ? 0 : 1;
                        lag += Math.max(0, ends.get(entry.getKey()).offset() - entry.getValue().offset() - markers);
                    }
                }
            }
            return lag;
        }
    }
}
