package dev.onejob.bench;

import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.infra.EmbeddedKafka;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.AppInfoParser;

/**
 * The run's Kafka: {@code KAFKA_BOOTSTRAP_SERVERS} if set, else Apache Kafka started in this JVM (one KRaft node,
 * data in a temporary directory deleted at the end), with onejob's topics and the ProducerPerformance topic created,
 * three partitions each.
 */
final class BenchKafka implements AutoCloseable {
    static final String PERF_TOPIC = "bench-producer-perf";

    private final EmbeddedKafka embedded;
    private final String bootstrapServers;

    private BenchKafka(EmbeddedKafka embedded, String bootstrapServers) {
        this.embedded = embedded;
        this.bootstrapServers = bootstrapServers;
    }

    static BenchKafka start(Map<String, String> env) {
        String given = env.get("KAFKA_BOOTSTRAP_SERVERS");
        BenchKafka kafka;
        if (given != null && !given.isBlank()) {
            kafka = new BenchKafka(null, given);
        } else {
            EmbeddedKafka broker = EmbeddedKafka.start(null, Map.of());
            kafka = new BenchKafka(broker, broker.bootstrapServers());
        }
        List<String> topics = new ArrayList<>(KafkaTopics.allNames());
        topics.add(PERF_TOPIC);
        // Four partitions: the scaling phase runs up to four workers, and two reconcilers of two consumers each.
        KafkaTopics.ensure(kafka.bootstrapServers, topics, 4, (short) 1);
        return kafka;
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    String source() {
        return embedded == null ? "KAFKA_BOOTSTRAP_SERVERS" : "in-process KRaft broker (in the bench driver's JVM)";
    }

    static String version() {
        return AppInfoParser.getVersion();
    }

    @Override
    public void close() {
        if (embedded != null) {
            embedded.close();
        }
    }
}
