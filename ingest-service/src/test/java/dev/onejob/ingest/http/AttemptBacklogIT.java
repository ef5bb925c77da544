package dev.onejob.ingest.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.kafka.Topics;
import dev.onejob.testing.TestKafka;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The backlog load shedding reads, on the real broker: commands on attempt-commands that a group has not committed
 * past (all of them while it committed nothing), and what it has taken in all.
 */
class AttemptBacklogIT {
    private final String bootstrap = TestKafka.shared().bootstrapServers();

    @Test
    void theBacklogIsTheGroupsLagAndShrinksAsItCommits() throws Exception {
        KafkaTopics.ensure(bootstrap, KafkaTopics.allNames(), 3, (short) 1);
        String group = "backlog-it-" + UUID.randomUUID();
        String topic = Topics.ATTEMPT_COMMANDS.name();
        try (Admin admin = TestKafka.shared().admin();
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(new KafkaConfig(bootstrap)
                     .producer("backlog-it"), new ByteArraySerializer(), new ByteArraySerializer())) {
            AttemptBacklog backlog = new AttemptBacklog(admin, group);
            // given a group that committed nothing: everything on the topic waits for it
            Admission.BacklogReading before = backlog.get();
            for (int i = 0; i < 12; i++) {
                producer.send(new ProducerRecord<>(topic, ("job-" + i).getBytes(), "{}".getBytes())).get();
            }
            Admission.BacklogReading after = backlog.get();
            assertEquals(before.waiting() + 12, after.waiting(), "12 more commands wait");
            assertEquals(0, after.taken());

            // when the group commits every partition's end
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, OffsetAndMetadata> ends = new HashMap<>();
            admin.listOffsets(latest).all().get().forEach((partition, info) -> ends.put(partition,
                    new OffsetAndMetadata(info.offset())));
            admin.alterConsumerGroupOffsets(group, ends).all().get();

            // then nothing waits, and all of it counts as taken
            Admission.BacklogReading committed = backlog.get();
            assertEquals(0, committed.waiting());
            assertEquals(ends.values().stream().mapToLong(OffsetAndMetadata::offset).sum(), committed.taken());
        }
    }
}
