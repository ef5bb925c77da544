package dev.onejob.bench;

import dev.onejob.infra.EmbeddedKafka;
import dev.onejob.stack.LocalKafka;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.AppInfoParser;

/**
 * The run's Kafka, on the stack kit's {@link LocalKafka}: {@code KAFKA_BOOTSTRAP_SERVERS} if set, else Apache Kafka
 * started in this JVM (one KRaft node, data in a temporary directory deleted at the end), with onejob's topics and
 * the ProducerPerformance topic created, four partitions each.
 */
final class BenchKafka implements AutoCloseable {
    static final String PERF_TOPIC = "bench-producer-perf";

    private final LocalKafka kafka;

    private BenchKafka(LocalKafka kafka) {
        this.kafka = kafka;
    }

    static BenchKafka start(Map<String, String> env) {
        LocalKafka kafka = LocalKafka.fromEnv(env, () -> EmbeddedKafka.start(null, Map.of()));
        // Four partitions: the scaling phase runs up to four workers, and two reconcilers of two consumers each.
        kafka.createTopics(List.of(PERF_TOPIC), 4);
        return new BenchKafka(kafka);
    }

    String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    String source() {
        return kafka.inProcess() ? "in-process KRaft broker (in the bench driver's JVM)" : "KAFKA_BOOTSTRAP_SERVERS";
    }

    static String version() {
        return AppInfoParser.getVersion();
    }

    @Override
    public void close() {
        kafka.close();
    }
}
