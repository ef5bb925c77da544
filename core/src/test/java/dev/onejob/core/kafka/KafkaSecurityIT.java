package dev.onejob.core.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.infra.EmbeddedKafka;
import dev.onejob.testing.Await;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * onejob's clients against a real broker whose client listener wants SASL/SCRAM-SHA-512: with the principal's
 * credentials from the environment, topics are created and a record goes round; with a wrong password, nothing is.
 */
class KafkaSecurityIT {
    private static EmbeddedKafka broker;

    @BeforeAll
    static void start() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        broker = EmbeddedKafka.startWithScram(port);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.internalBootstrapServers()))) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("ingest-service",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), "right-password")))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static KafkaConfig as(String password) {
        return KafkaConfig.fromEnv(Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers(),
                "KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT", "KAFKA_SASL_USERNAME", "ingest-service",
                "KAFKA_SASL_PASSWORD", password));
    }

    @Test
    void theRightCredentialsCreateTopicsAndCarryARecord() throws Exception {
        KafkaConfig kafka = as("right-password");
        // A new credential reaches the broker through its metadata log: the first tries may still be refused.
        Await.until(Duration.ofSeconds(30), "the broker to accept the new credential", () -> {
            try {
                KafkaTopics.ensure(kafka, List.of("secured"), new KafkaTopics.Layout(1, (short) 1, 1));
                return true;
            } catch (RuntimeException refused) {
                return false;
            }
        });
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(kafka.producer("secured-producer"),
                new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("secured", "k", "v")).get(30, TimeUnit.SECONDS);
        }
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(kafka.consumer("secured-group",
                "secured-consumer"), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(Set.of("secured"));
            ConsumerRecords<String, String> records = ConsumerRecords.empty();
            long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (records.isEmpty() && System.nanoTime() < until) {
                records = consumer.poll(Duration.ofMillis(200));
            }
            assertEquals("v", records.iterator().next().value());
        }
    }

    @Test
    void aWrongPasswordIsRefusedByTheBroker() {
        KafkaConfig kafka = as("wrong-password");
        Map<String, Object> props = kafka.admin("intruder");
        props.put("default.api.timeout.ms", 15_000);
        try (Admin admin = Admin.create(props)) {
            Exception refused = assertThrows(Exception.class, () -> admin.listTopics().names()
                    .get(20, TimeUnit.SECONDS));
            assertTrue(String.valueOf(refused.getCause()).contains("Authentication failed")
                    || String.valueOf(refused).contains("Authentication failed"), refused.toString());
        }
    }
}
