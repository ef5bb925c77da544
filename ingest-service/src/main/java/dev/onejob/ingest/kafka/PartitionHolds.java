package dev.onejob.ingest.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions the intake holds back because an owner went over its share ({@code RATE_LIMIT_PER_OWNER}): a
 * record over it is not answered but read again, with the rest of its partition, once the owner's bucket has refilled.
 * Kafka is the queue: the producer sees no refusal, only a later answer, and no record is lost or reordered. Each
 * held partition is paused until its time; the poll thread alone touches this.
 */
final class PartitionHolds {
    private final Map<TopicPartition, Long> until = new HashMap<>();

    /** Holds {@code partition} until {@code untilNanos} ({@link System#nanoTime()}), or longer if held already. */
    void hold(TopicPartition partition, long untilNanos) {
        until.merge(partition, untilNanos, Math::max);
    }

    boolean isHeld(TopicPartition partition) {
        return until.containsKey(partition);
    }

    /** The held partitions whose time has come, no longer held once returned. */
    List<TopicPartition> due(long nowNanos) {
        List<TopicPartition> due = new ArrayList<>();
        until.entrySet().removeIf(entry -> {
            if (entry.getValue() - nowNanos <= 0) {
                due.add(entry.getKey());
                return true;
            }
            return false;
        });
        return due;
    }

    /** Partitions taken from this consumer: whoever gets them reads from the committed offset, unheld. */
    void forget(Collection<TopicPartition> partitions) {
        partitions.forEach(until::remove);
    }

    /** Of {@code paused}, those this does not hold: what a released brake may resume. */
    List<TopicPartition> notHeld(Set<TopicPartition> paused) {
        return paused.stream().filter(partition -> !until.containsKey(partition)).toList();
    }
}
