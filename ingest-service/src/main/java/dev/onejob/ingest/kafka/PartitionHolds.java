package dev.onejob.ingest.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions the intake holds back because an owner went over its share ({@code RATE_LIMIT_PER_OWNER}): a
 * record over it is not answered but read again, with the rest of its partition, once the owner's bucket has refilled.
 * Kafka is the queue: the producer sees no refusal, only a later answer, and no record is lost or reordered. Each
 * held partition is paused until its time; the poll thread alone touches this.
 */
final class PartitionHolds {
    private final Consumer<?, ?> consumer;
    private final Map<TopicPartition, Long> until = new HashMap<>();

    PartitionHolds(Consumer<?, ?> consumer) {
        this.consumer = consumer;
    }

    /**
     * Reads each partition of {@code heldFrom} again from its offset there (its first over-share record) once
     * {@code nanos} have passed: seeks it back and pauses it until then. Returns how many partitions it held.
     */
    int hold(Map<TopicPartition, Long> heldFrom, long nanos) {
        long untilNanos = System.nanoTime() + nanos;
        heldFrom.forEach((partition, offset) -> {
            consumer.seek(partition, offset);
            until.merge(partition, untilNanos, Math::max);
        });
        consumer.pause(heldFrom.keySet());
        return heldFrom.size();
    }

    /** Resumes the held partitions whose time has come, unless {@code braking} holds every partition paused. */
    void release(boolean braking) {
        List<TopicPartition> due = due(System.nanoTime());
        if (!due.isEmpty() && !braking) {
            due.retainAll(consumer.assignment());
            consumer.resume(due);
        }
    }

    /** The held partitions whose time has come, no longer held once returned. */
    private List<TopicPartition> due(long nowNanos) {
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
