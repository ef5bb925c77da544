package dev.onejob.ingest.http;

import dev.onejob.core.kafka.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The attempt commands the workers have not taken yet: the {@code attempt-worker} group's lag on
 * {@code attempt-commands} (end offsets minus committed ones; from the earliest offset where the group committed
 * nothing), and the offsets it has committed in all, whose growth is the rate workers take commands. Transaction
 * markers count as commands here: a few per relay batch, a small overcount.
 */
public final class AttemptBacklog implements Supplier<Admission.BacklogReading> {
    /** The workers' consumer group (AttemptWorker.GROUP_ID; the ingest service does not depend on the worker). */
    public static final String WORKER_GROUP = "attempt-worker";
    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private final Admin admin;
    private final String group;
    private final String topic = Topics.ATTEMPT_COMMANDS.name();

    public AttemptBacklog(Admin admin, String group) {
        this.admin = admin;
        this.group = group;
    }

    @Override
    public Admission.BacklogReading get() {
        try {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(topic).partitions().size();
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
                earliest.put(new TopicPartition(topic, p), OffsetSpec.earliest());
            }
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> starts = admin.listOffsets(earliest).all()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            long waiting = 0;
            long taken = 0;
            for (int p = 0; p < partitions; p++) {
                TopicPartition partition = new TopicPartition(topic, p);
                OffsetAndMetadata done = committed.get(partition);
                long next = done != null ? done.offset() : starts.get(partition).offset();
                waiting += Math.max(0, ends.get(partition).offset() - next);
                taken += next;
            }
            return new Admission.BacklogReading(waiting, taken);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the workers' backlog", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the " + group + " group's lag on " + topic + ": " + e, e);
        }
    }
}
