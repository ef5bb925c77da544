package dev.onejob.reconciler;

import dev.onejob.core.kafka.ConsumerLag;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;

/**
 * How far the reconcilers' group has applied {@code attempt-completions}, per partition, as a time: every completion
 * produced before it has been applied. The sweeper asks it before it takes a STARTING attempt's worker for vanished:
 * an attempt past its {@code abandon_after} whose partition is not applied up to that time may have its outcome
 * waiting in the topic (the reconciler is behind), and sweeping it would turn onejob's own queue into an UNKNOWN.
 *
 * <p>Per partition: caught up (committed offset at the end) means applied up to when the end offsets were read;
 * behind means applied up to the timestamp of the oldest record not yet applied (the producer's create time, set by
 * the worker when it sends). Read from the group's committed offsets (Streams commits them with each transaction)
 * with an {@link Admin}, and the oldest unapplied record with a consumer of no group, only for partitions that lag.
 */
final class CompletionProgress implements AutoCloseable {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    private final String groupId;
    private final String topic = Topics.ATTEMPT_COMPLETIONS.name();
    private final Admin admin;
    private final KafkaConsumer<byte[], byte[]> reader;

    CompletionProgress(String bootstrapServers, String groupId, String clientId) {
        this(new KafkaConfig(bootstrapServers), groupId, clientId);
    }

    CompletionProgress(KafkaConfig kafka, String groupId, String clientId) {
        this.groupId = groupId;
        Map<String, Object> adminProps = kafka.admin(clientId + "-admin");
        adminProps.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT.toMillis());
        adminProps.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT.toMillis());
        this.admin = Admin.create(adminProps);
        Map<String, Object> readerProps = kafka.common();
        readerProps.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-reader");
        readerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        readerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        readerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1);
        readerProps.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
        this.reader = new KafkaConsumer<>(readerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Per partition of attempt-completions, the time before which every completion has been applied. */
    record Snapshot(int partitions, Map<Integer, Instant> appliedUpTo) {
        /** Whether every completion produced before {@code time} for this job's partition has been applied. */
        boolean appliedBefore(UUID jobId, Instant time) {
            Instant upTo = appliedUpTo.get(partition(jobId, partitions));
            return upTo != null && time.isBefore(upTo);
        }

        /** The partition the worker's producer picks for a completion keyed by this job id (Kafka's default). */
        static int partition(UUID jobId, int partitions) {
            return Utils.toPositive(Utils.murmur2(jobId.toString().getBytes(StandardCharsets.UTF_8))) % partitions;
        }
    }

    /**
     * Reads the progress now; fails (the sweeper then sweeps nothing this round) when the broker does not answer.
     *
     * @throws IllegalStateException naming what could not be read
     */
    Snapshot snapshot() {
        Instant asOf = Instant.now();
        try {
            ConsumerLag lag = ConsumerLag.read(admin, groupId, topic, CALL_TIMEOUT);
            Map<Integer, Instant> upTo = new HashMap<>();
            for (ConsumerLag.Position position : lag.partitions()) {
                if (position.next() >= position.end()) {
                    upTo.put(position.partition().partition(), asOf);
                } else {
                    Instant oldest = createTimeAt(position.partition(), position.next());
                    if (oldest != null) {
                        upTo.put(position.partition().partition(), oldest);
                    }
                }
            }
            return new Snapshot(lag.partitions().size(), upTo);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the progress of " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read how far " + groupId + " has applied " + topic + ": " + e, e);
        }
    }

    /** The create time of the record at {@code offset} (or the first after it); null when none came in time. */
    private Instant createTimeAt(TopicPartition partition, long offset) {
        reader.assign(List.of(partition));
        reader.seek(partition, offset);
        long deadline = System.nanoTime() + CALL_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> record : reader.poll(Duration.ofMillis(100)).records(partition)) {
                return Instant.ofEpochMilli(record.timestamp());
            }
        }
        return null;
    }

    @Override
    public void close() {
        reader.close(Duration.ofSeconds(2));
        admin.close(Duration.ofSeconds(2));
    }
}
