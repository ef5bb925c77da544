package dev.onejob.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The benchmark's own Kafka chores: reading a whole topic as read_committed, and moving a group to a topic's end. */
final class KafkaSupport {
    private KafkaSupport() {
    }

    /** Every committed record of {@code topic} up to its current end. */
    static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrapServers, String topic) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "bench-reader-" + UUID.randomUUID(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (System.nanoTime() < deadline && partitions.stream()
                    .anyMatch(p -> consumer.position(p) < end.get(p))) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    /** Commits {@code group}'s offsets on {@code topic} at its end, so a consumer starting in it skips what is there. */
    static void skipToEnd(String bootstrapServers, String group, String topic) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((partition, info) -> offsets.put(partition, new OffsetAndMetadata(info.offset())));
            admin.alterConsumerGroupOffsets(group, offsets).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot move group " + group + " to the end of " + topic + ": " + e, e);
        }
    }
}
