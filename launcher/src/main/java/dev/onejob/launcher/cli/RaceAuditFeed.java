package dev.onejob.launcher.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaSecurity;
import dev.onejob.core.kafka.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The {@code race-audit} topic as a read_committed consumer sees it: only records of committed outbox-relay
 * transactions, so each lost race exactly once. Used by {@code races tail} and the demo.
 *
 * <p>Consumes the broker's address and where to start (the beginning, or now); produces the records one poll at a
 * time (key: the job id; value: the audit record, or the raw text when it is not JSON). Owns one consumer that
 * belongs to no group: it assigns itself every partition and commits nothing, so reading never moves anyone's
 * offsets. Not thread-safe except {@link #wakeup()}.
 */
public final class RaceAuditFeed implements AutoCloseable {
    private final KafkaConsumer<String, String> consumer;

    /** One record of race-audit: the job id it is keyed by, and the audit record. */
    public record Race(String jobId, JsonNode record) {
    }

    private RaceAuditFeed(KafkaConsumer<String, String> consumer) {
        this.consumer = consumer;
    }

    /**
     * Connects and positions the consumer: at the start of every partition, or at its end (only races detected
     * from now on).
     *
     * @throws CliFailure exit 3 when the broker does not answer within {@code connectTimeout}, exit 2 when it has
     *                    no race-audit topic
     */
    public static RaceAuditFeed open(String bootstrapServers, boolean fromBeginning, Duration connectTimeout) {
        return open(bootstrapServers, KafkaSecurity.PLAINTEXT, fromBeginning, connectTimeout);
    }

    /** The same, authenticating as the environment's {@code KAFKA_SECURITY_PROTOCOL} and credentials say. */
    public static RaceAuditFeed open(String bootstrapServers, KafkaSecurity security, boolean fromBeginning,
                                     Duration connectTimeout) {
        Map<String, Object> props = new HashMap<>(security.clientProperties());
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "onejob-races-tail");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, fromBeginning ? "earliest" : "latest");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer());
        try {
            List<TopicPartition> partitions = partitions(consumer, bootstrapServers, connectTimeout);
            consumer.assign(partitions);
            if (fromBeginning) {
                consumer.seekToBeginning(partitions);
            } else {
                consumer.seekToEnd(partitions);
            }
            // Resolve the positions now: "from now" must not slide to whatever the end is at the first poll.
            partitions.forEach(partition -> consumer.position(partition, connectTimeout));
            return new RaceAuditFeed(consumer);
        } catch (TimeoutException e) {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
            throw unreachable(bootstrapServers, connectTimeout);
        } catch (RuntimeException e) {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
            throw e;
        }
    }

    private static List<TopicPartition> partitions(KafkaConsumer<String, String> consumer, String bootstrapServers,
                                                   Duration timeout) {
        String topic = Topics.RACE_AUDIT.name();
        List<PartitionInfo> infos;
        try {
            infos = consumer.partitionsFor(topic, timeout);
        } catch (TimeoutException e) {
            throw unreachable(bootstrapServers, timeout);
        } catch (KafkaException e) {
            throw CliFailure.unreachable("cannot read " + topic + " at " + bootstrapServers + ": " + e.getMessage());
        }
        if (infos == null || infos.isEmpty()) {
            throw CliFailure.usage("the Kafka broker at " + bootstrapServers + " has no topic " + topic
                    + ": is it the stack's broker (KAFKA_BOOTSTRAP_SERVERS)?");
        }
        List<TopicPartition> partitions = new ArrayList<>();
        infos.forEach(info -> partitions.add(new TopicPartition(info.topic(), info.partition())));
        return partitions;
    }

    private static CliFailure unreachable(String bootstrapServers, Duration timeout) {
        return CliFailure.unreachable("the Kafka broker at " + bootstrapServers + " did not answer within "
                + timeout.toSeconds() + " s: is the stack running? give its address with --bootstrap-servers or "
                + "KAFKA_BOOTSTRAP_SERVERS");
    }

    /** The races that came in within {@code timeout} (possibly none). */
    public List<Race> poll(Duration timeout) {
        List<Race> races = new ArrayList<>();
        try {
            for (ConsumerRecord<String, String> record : consumer.poll(timeout)) {
                races.add(new Race(record.key(), parse(record.value())));
            }
        } catch (WakeupException e) {
            Thread.currentThread().interrupt();
        }
        return races;
    }

    /** Makes a poll in progress return at once (from any thread, e.g. a shutdown hook). */
    public void wakeup() {
        consumer.wakeup();
    }

    private static JsonNode parse(String value) {
        try {
            return value == null ? TextNode.valueOf("") : Json.parse(value);
        } catch (IllegalArgumentException e) {
            return TextNode.valueOf(value);
        }
    }

    @Override
    public void close() {
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(2)));
    }
}
