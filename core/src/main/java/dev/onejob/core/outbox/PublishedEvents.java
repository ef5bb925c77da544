package dev.onejob.core.outbox;

import dev.onejob.core.events.Headers;
import dev.onejob.core.kafka.KafkaConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;

/**
 * Answers "is this outbox event already on its topic?" for rows a relay claims a second time (an earlier relay may
 * have committed its Kafka transaction and died before marking the row sent). It reads, as a read_committed
 * consumer, the partition the event's key maps to, from a little before the row was queued to the end, looking for
 * the event id header. Only re-claimed rows pay for this.
 */
final class PublishedEvents implements AutoCloseable {
    private static final Duration CLOCK_SKEW = Duration.ofMinutes(1);

    private final KafkaConsumer<byte[], byte[]> consumer;

    PublishedEvents(KafkaConfig kafka, String clientId) {
        Map<String, Object> props = kafka.common();
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        this.consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    boolean contains(OutboxEvent event) {
        int partitions = consumer.partitionsFor(event.topic()).size();
        // The producer's default partitioner: murmur2 of the key bytes.
        int partition = Utils.toPositive(Utils.murmur2(event.messageKey().getBytes(StandardCharsets.UTF_8)))
                % partitions;
        TopicPartition tp = new TopicPartition(event.topic(), partition);
        consumer.assign(List.of(tp));
        long from = event.createdAt().minus(CLOCK_SKEW).toEpochMilli();
        OffsetAndTimestamp start = consumer.offsetsForTimes(Map.of(tp, from)).get(tp);
        long end = consumer.endOffsets(List.of(tp)).get(tp);
        if (start == null) {
            return false;
        }
        consumer.seek(tp, start.offset());
        while (consumer.position(tp) < end) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                Header id = record.headers().lastHeader(Headers.EVENT_ID);
                if (id != null && event.eventId().equals(new String(id.value(), StandardCharsets.UTF_8))) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(5));
    }
}
