package dev.onejob.stack.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class KafkaBrokerIT {
    private static final String TOPIC = "job-requests";

    @Test
    void anAcknowledgedRecordSurvivesKillDashNineAndTheRestartedBrokerTakesNewWrites() throws Exception {
        // given a broker with a topic and a record written with acks=all
        KafkaBroker broker = new KafkaBroker(InfraRuns.runner("kafka"),
                InfraRuns.fresh(InfraRuns.dir("kafka").resolve("broker")));
        try (broker) {
            broker.start();
            try (KafkaProducer<String, String> producer = producer(broker)) {
                try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers()))) {
                    admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
                }
                producer.send(new ProducerRecord<>(TOPIC, "job-1", "before the crash")).get();
                long firstPid = broker.process().pid();

                // when the broker is killed with SIGKILL and started again on the same data
                broker.restart();

                // then it is a new process on the same address that still holds the record
                assertNotEquals(firstPid, broker.process().pid());
                assertEquals(List.of("before the crash"), readAll(broker, 1));

                // and the producer from before the crash writes through it again
                producer.send(new ProducerRecord<>(TOPIC, "job-2", "after the restart")).get();
                assertEquals(List.of("before the crash", "after the restart"), readAll(broker, 2));
            }
        }
    }

    private static KafkaProducer<String, String> producer(KafkaBroker broker) {
        Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static List<String> readAll(KafkaBroker broker, int expected) {
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<String> values = new ArrayList<>();
        TopicPartition partition = new TopicPartition(TOPIC, 0);
        try (var consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
            }
        }
        return values;
    }
}
