package dev.onejob.stack;

import dev.onejob.core.config.Env;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.service.Closeables;
import dev.onejob.infra.proc.ProcessRunner;
import dev.onejob.stack.infra.KafkaBroker;
import dev.onejob.stack.infra.KafkaCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The stack's Apache Kafka, each node its own process: one PLAINTEXT {@link KafkaBroker} with onejob's topics (three
 * partitions, one replica), or an authenticated {@link KafkaCluster} of several nodes (SASL/SCRAM, ACLs per
 * principal, topics replicated) with the principals file the services read. Produces each service's Kafka
 * variables; owns the broker or the cluster.
 */
public final class StackKafka implements AutoCloseable {
    private final KafkaBroker broker;
    private final KafkaCluster cluster;
    private final KafkaPrincipals principals;
    private final Path principalsFile;

    private StackKafka(KafkaBroker broker, KafkaCluster cluster, KafkaPrincipals principals, Path principalsFile) {
        this.broker = broker;
        this.cluster = cluster;
        this.principals = principals;
        this.principalsFile = principalsFile;
    }

    /** One PLAINTEXT broker with its data in {@code dir}, every topic created. */
    public static StackKafka oneBroker(ProcessRunner runner, Path dir) {
        KafkaBroker broker = new KafkaBroker(runner, dir);
        try {
            broker.start();
            KafkaTopics.ensure(broker.bootstrapServers(), KafkaTopics.allNames(), 3, (short) 1);
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
        return new StackKafka(broker, null, null, null);
    }

    /**
     * {@code nodes} authenticated nodes with their data in {@code dir}, onejob's topics and the ACLs of
     * {@code principals}, written to {@code principalsFile} for the services ({@code header}: its first comment).
     */
    public static StackKafka authenticated(ProcessRunner runner, Path dir, int nodes, KafkaPrincipals principals,
                                           Path principalsFile, String header) {
        KafkaCluster cluster = new KafkaCluster(runner, dir, nodes, principals.allNames());
        try {
            cluster.start();
            cluster.setup(principals);
            writePrincipals(principalsFile, principals, header);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return new StackKafka(null, cluster, principals, principalsFile);
    }

    private static void writePrincipals(Path file, KafkaPrincipals principals, String header) {
        KafkaPrincipals.Services services = principals.services();
        StringBuilder producers = new StringBuilder();
        principals.producers().forEach((user, owners) ->
                producers.append("  ").append(user).append(": [").append(String.join(", ", owners)).append("]\n"));
        String text = """
                # %s
                owner_from: principal
                services: {ingest: %s, worker: %s, reconciler: %s}
                analysts: [%s]
                producers:
                %s""".formatted(header, services.ingest(), services.worker(), services.reconciler(),
                String.join(", ", principals.analysts()), producers);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    public String bootstrapServers() {
        return broker != null ? broker.bootstrapServers() : cluster.bootstrapServers();
    }

    /** How a service of {@code role} reaches Kafka: nothing more on one broker, its own principal on the cluster. */
    public Map<String, String> serviceEnv(Role role) {
        Map<String, String> env = new HashMap<>();
        if (cluster != null) {
            env.putAll(cluster.clientEnv(role.principal(principals.services())));
            env.put(Env.KAFKA_PRINCIPALS_FILE, principalsFile.toString());
        }
        return env;
    }

    /** The one broker, or null on the cluster. */
    public KafkaBroker broker() {
        return broker;
    }

    /** The authenticated cluster, or null on one broker. */
    public KafkaCluster cluster() {
        return cluster;
    }

    public Path principalsFile() {
        return principalsFile;
    }

    @Override
    public void close() {
        Closeables.closeInOrder(broker, cluster);
    }
}
