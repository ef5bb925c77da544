package dev.onejob.chaos.check;

import dev.onejob.core.kafka.KafkaConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads whole topics once, as a read_committed consumer with no group: every partition assigned, read from the
 * beginning up to the end offsets taken at the start. Produces the raw records per topic; owns its consumer for the
 * duration of one {@link #readAll} call. A topic that does not exist reads as empty.
 */
final class TopicReader {
    private TopicReader() {
    }

    static Map<String, List<ConsumerRecord<byte[], byte[]>>> readAll(KafkaConfig kafka,
                                                                       List<String> topics, Duration timeout) {
        Map<String, Object> props = kafka.common();
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "chaos-history-checker");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // Aborted transactions never happened; open ones end before the end offsets (the LSO) we read to.
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        Map<String, List<ConsumerRecord<byte[], byte[]>>> records = new HashMap<>();
        topics.forEach(topic -> records.put(topic, new ArrayList<>()));
        try (var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : topics) {
                consumer.partitionsFor(topic, timeout)
                        .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (behind(consumer, partitions, end)) {
                if (System.nanoTime() > deadline) {
                    // A partial read would hide duplicates and invent missing records: refuse to check on it.
                    throw new IllegalStateException("could not read " + topics + " to their end within " + timeout);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(r -> records.get(r.topic()).add(r));
            }
        }
        return records;
    }

    private static boolean behind(KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> partitions,
                                  Map<TopicPartition, Long> end) {
        return partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p));
    }
}
