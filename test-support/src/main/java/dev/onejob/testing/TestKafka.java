package dev.onejob.testing;

import dev.onejob.infra.EmbeddedKafka;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.utils.AppInfoParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Apache Kafka broker for this test run, chosen in this order and logged: {@code KAFKA_BOOTSTRAP_SERVERS}
 * if set; Testcontainers' {@code KafkaContainer} (image {@code apache/kafka} at the clients' version) when a Docker
 * engine answers; else a KRaft broker started in-process from Kafka's own artifacts ({@link EmbeddedKafka}).
 */
public final class TestKafka {
    private static final Logger log = LoggerFactory.getLogger(TestKafka.class);
    private static TestKafka shared;

    private final String bootstrapServers;
    private final String source;

    private TestKafka(String bootstrapServers, String source) {
        this.bootstrapServers = bootstrapServers;
        this.source = source;
    }

    public static synchronized TestKafka shared() {
        if (shared == null) {
            shared = choose();
            log.info("Kafka for this run: {} at {}", shared.source, shared.bootstrapServers);
        }
        return shared;
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Which broker was chosen: "KAFKA_BOOTSTRAP_SERVERS", "testcontainers" or "in-process KRaft". */
    public String source() {
        return source;
    }

    public Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return Admin.create(props);
    }

    private static TestKafka choose() {
        String given = System.getenv("KAFKA_BOOTSTRAP_SERVERS");
        if (given != null && !given.isBlank()) {
            return new TestKafka(given, "KAFKA_BOOTSTRAP_SERVERS");
        }
        if (DockerKafka.dockerAnswers()) {
            return new TestKafka(DockerKafka.start("apache/kafka:" + AppInfoParser.getVersion()), "testcontainers");
        }
        EmbeddedKafka embedded = EmbeddedKafka.start(null, Map.of());
        Runtime.getRuntime().addShutdownHook(new Thread(embedded::close, "stop-test-kafka"));
        return new TestKafka(embedded.bootstrapServers(), "in-process KRaft");
    }
}
