package dev.onejob.infra;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * Apache Kafka itself, one combined KRaft broker+controller, started in this JVM from Kafka's own artifacts. Used
 * by tests and the local stack when no broker is given. With a base directory its data survives a restart.
 */
public final class EmbeddedKafka implements AutoCloseable {
    /** The listener a fixed port adds; the test kit's own listeners stay on the ports it pre-binds. */
    private static final String LOCAL_LISTENER = "LOCAL";

    private final KafkaClusterTestKit cluster;
    private final int localPort;

    private EmbeddedKafka(KafkaClusterTestKit cluster, int localPort) {
        this.cluster = cluster;
        this.localPort = localPort;
    }

    /** {@link #start(Path, int, Map)} on ports of the system's choosing. */
    public static EmbeddedKafka start(Path baseDirectory, Map<String, String> extraProperties) {
        return start(baseDirectory, 0, extraProperties);
    }

    /**
     * Starts the broker; {@code baseDirectory} null means a temporary directory deleted on close. With a base
     * directory, the cluster id is kept in {@code cluster-id} there and a directory formatted by an earlier start is
     * started as it is, with its topics and records. A {@code localPort} above 0 adds a listener on
     * {@code localhost:localPort}, which {@link #bootstrapServers()} then names: Kafka's test kit binds its own
     * listeners to ports it chooses before the broker starts, and ignores a port given in {@code listeners}. Extra
     * broker properties override the single-node defaults.
     */
    public static EmbeddedKafka start(Path baseDirectory, int localPort, Map<String, String> extraProperties) {
        return start(baseDirectory, localPort, extraProperties, "PLAINTEXT");
    }

    /**
     * A broker whose fixed-port listener authenticates clients with SASL/SCRAM-SHA-512; its own listeners stay
     * PLAINTEXT ({@link #internalBootstrapServers()}), where credentials are created. No authorizer: who may do what
     * is not decided here.
     */
    public static EmbeddedKafka startWithScram(int localPort) {
        return start(null, localPort, Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512",
                "listener.name.local.sasl.enabled.mechanisms", "SCRAM-SHA-512",
                "listener.name.local.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;"), "SASL_PLAINTEXT");
    }

    /**
     * {@link #startWithScram} with Kafka's {@code StandardAuthorizer}: on the SCRAM listener a principal may do only
     * what an ACL allows ({@code allow.everyone.if.no.acl.found=false}). The broker's own PLAINTEXT listeners, where
     * its controller and the test's setup connect as {@code ANONYMOUS}, are super users, so only loopback code that
     * is handed {@link #internalBootstrapServers()} can get past the ACLs.
     */
    public static EmbeddedKafka startWithScramAndAcls(int localPort) {
        return start(null, localPort, Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512",
                "listener.name.local.sasl.enabled.mechanisms", "SCRAM-SHA-512",
                "listener.name.local.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;",
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "allow.everyone.if.no.acl.found", "false",
                "super.users", "User:ANONYMOUS"), "SASL_PLAINTEXT");
    }

    private static EmbeddedKafka start(Path baseDirectory, int localPort, Map<String, String> extraProperties,
                                       String localProtocol) {
        try {
            TestKitNodes.Builder nodes = new TestKitNodes.Builder()
                    .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1);
            Path idFile = baseDirectory == null ? null : baseDirectory.resolve("cluster-id");
            // The id file is written only after a successful format, so its presence means "formatted".
            boolean formatted = idFile != null && Files.exists(idFile);
            String clusterId = formatted ? Files.readString(idFile).trim() : Uuid.randomUuid().toString();
            nodes.setClusterId(clusterId);
            if (baseDirectory != null) {
                Files.createDirectories(baseDirectory);
                nodes.setBaseDirectory(baseDirectory);
            }
            TestKitNodes built = nodes.build();
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(built)
                    // Single node: without these, consumer groups and transactions wait for replicas forever.
                    .setConfigProp("offsets.topic.replication.factor", "1")
                    .setConfigProp("transaction.state.log.replication.factor", "1")
                    .setConfigProp("transaction.state.log.min.isr", "1")
                    .setConfigProp("group.initial.rebalance.delay.ms", "0")
                    .setConfigProp("auto.create.topics.enable", "false")
                    .setDeleteOnClose(baseDirectory == null);
            if (localPort > 0) {
                String broker = built.brokerListenerName().value();
                String controller = built.controllerListenerName().value();
                String local = LOCAL_LISTENER + "://localhost:" + localPort;
                builder.setConfigProp("listeners", broker + "://localhost:0," + controller + "://localhost:0," + local)
                        .setConfigProp("advertised.listeners", broker + "://localhost:0," + local)
                        .setConfigProp("listener.security.protocol.map", broker + ":PLAINTEXT," + controller
                                + ":PLAINTEXT," + LOCAL_LISTENER + ":" + localProtocol);
            }
            extraProperties.forEach(builder::setConfigProp);
            KafkaClusterTestKit cluster = builder.build();
            if (!formatted) {
                cluster.format();
                if (idFile != null) {
                    Files.writeString(idFile, clusterId);
                }
            }
            cluster.startup();
            cluster.waitForReadyBrokers();
            return new EmbeddedKafka(cluster, localPort);
        } catch (Exception e) {
            throw new IllegalStateException("the in-process Kafka broker did not start: " + e.getMessage(), e);
        }
    }

    /** The broker's own PLAINTEXT listener, whatever the fixed-port one asks of clients. */
    public String internalBootstrapServers() {
        return cluster.bootstrapServers();
    }

    public String bootstrapServers() {
        return localPort > 0 ? "localhost:" + localPort : cluster.bootstrapServers();
    }

    @Override
    public void close() {
        try {
            cluster.close();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the in-process Kafka broker failed", e);
        }
    }
}
