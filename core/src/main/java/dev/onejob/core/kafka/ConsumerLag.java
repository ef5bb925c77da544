package dev.onejob.core.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer group's position on every partition of a topic, read with an {@link Admin}: the next offset it will
 * consume (its committed offset, or the partition's earliest where it committed nothing) and the partition's end
 * offset. Used by the ingest service for the workers' backlog and by the reconciler for how far it has applied
 * completions; each caller says in its own words what could not be read.
 *
 * @param partitions one position per partition, in partition order
 */
public record ConsumerLag(List<Position> partitions) {
    /** Where the group is on one partition. */
    public record Position(TopicPartition partition, long next, long end) {
        /** The records between the group's position and the end (none when it is at or past it). */
        public long waiting() {
            return Math.max(0, end - next);
        }
    }

    /**
     * Reads the group's position on every partition of {@code topic}, each call bounded by {@code timeout}.
     *
     * @throws ExecutionException when the broker refuses a call
     * @throws TimeoutException when a call does not answer in time
     */
    public static ConsumerLag read(Admin admin, String group, String topic, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        int partitions = admin.describeTopics(List.of(topic)).allTopicNames()
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(topic).partitions().size();
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            earliest.put(new TopicPartition(topic, p), OffsetSpec.earliest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all()
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> starts = admin.listOffsets(earliest).all()
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        List<Position> positions = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            TopicPartition partition = new TopicPartition(topic, p);
            OffsetAndMetadata done = committed.get(partition);
            long next = done != null ? done.offset() : starts.get(partition).offset();
            positions.add(new Position(partition, next, ends.get(partition).offset()));
        }
        return new ConsumerLag(List.copyOf(positions));
    }
}
