package dev.onejob.stack;

import dev.onejob.core.config.Env;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.infra.EmbeddedKafka;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The stack's Kafka when the driver runs it in its own process ({@code ./onejob dev}, the benchmark): the broker at
 * {@code KAFKA_BOOTSTRAP_SERVERS} when that is set, else Apache Kafka started in this JVM ({@link EmbeddedKafka}),
 * with onejob's topics (and any extra ones) created. Owns the in-process broker, if it started one.
 */
public final class LocalKafka implements AutoCloseable {
    private final EmbeddedKafka embedded;
    private final String bootstrapServers;

    private LocalKafka(EmbeddedKafka embedded, String bootstrapServers) {
        this.embedded = embedded;
        this.bootstrapServers = bootstrapServers;
    }

    /** The given broker, or the one {@code start} starts in this JVM when {@code KAFKA_BOOTSTRAP_SERVERS} is unset. */
    public static LocalKafka fromEnv(Map<String, String> env, Supplier<EmbeddedKafka> start) {
        String given = given(env);
        if (given != null) {
            return new LocalKafka(null, given);
        }
        EmbeddedKafka broker = start.get();
        return new LocalKafka(broker, broker.bootstrapServers());
    }

    /** {@code KAFKA_BOOTSTRAP_SERVERS}, or null when it is unset or blank. */
    public static String given(Map<String, String> env) {
        String given = env.get(Env.KAFKA_BOOTSTRAP_SERVERS);
        return given == null || given.isBlank() ? null : given;
    }

    /** Creates onejob's topics and {@code extra} ones where missing: {@code partitions} each, one replica. */
    public void createTopics(List<String> extra, int partitions) {
        List<String> topics = new ArrayList<>(KafkaTopics.allNames());
        topics.addAll(extra);
        KafkaTopics.ensure(bootstrapServers, topics, partitions, (short) 1);
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** True when the broker runs in this JVM. */
    public boolean inProcess() {
        return embedded != null;
    }

    @Override
    public void close() {
        if (embedded != null) {
            embedded.close();
        }
    }
}
