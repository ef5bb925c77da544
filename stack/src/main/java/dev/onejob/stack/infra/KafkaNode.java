package dev.onejob.stack.infra;

import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One node of a {@link KafkaCluster}: a combined KRaft broker+controller ({@code kafka.Kafka} from kafka_2.13) as
 * its own process. Owns its directory ({@code server.properties}, mode 0600 as it holds the broker's password, and
 * {@code data/}) and three loopback ports chosen once and kept across restarts: the clients' listener, the brokers'
 * replication listener and the controllers' quorum listener. Each start logs to its own file
 * ({@code kafka-<id>-<start>.log} in the runner's log directory).
 */
final class KafkaNode {
    private static final String STORAGE_TOOL = "kafka.tools.StorageTool";
    // The logging module's logback.xml keeps the broker's internals at ERROR; its start/stop lines stay visible.
    // Serial GC and C1 only: three brokers share two cores with everything else; this cluster is for correctness.
    private static final List<String> JVM_ARGS = List.of("-Xmx384m", "-Xms64m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Donejob.log.broker.lifecycle=INFO");

    private final ProcessRunner runner;
    private final int id;
    private final Path dir;
    private final int clientPort;
    private final int brokerPort;
    private final int controllerPort;
    private ChildProcess process;
    private int starts;

    /** A node whose files live in {@code dir}; picks three free ports none of which is in {@code taken} (added). */
    KafkaNode(ProcessRunner runner, int id, Path dir, Set<Integer> taken) {
        this.runner = runner;
        this.id = id;
        this.dir = dir.toAbsolutePath();
        this.clientPort = freePort(taken);
        this.brokerPort = freePort(taken);
        this.controllerPort = freePort(taken);
    }

    private static int freePort(Set<Integer> taken) {
        int port = LoopbackPorts.free();
        while (!taken.add(port)) {
            port = LoopbackPorts.free();
        }
        return port;
    }

    int id() {
        return id;
    }

    int clientPort() {
        return clientPort;
    }

    /** This node as an entry of {@code controller.quorum.voters}. */
    String voter() {
        return id + "@" + LoopbackPorts.HOST + ":" + controllerPort;
    }

    String clientAddress() {
        return LoopbackPorts.HOST + ":" + clientPort;
    }

    Path dataDir() {
        return dir.resolve("data");
    }

    boolean formatted() {
        return Files.exists(dataDir().resolve("meta.properties"));
    }

    /**
     * The node's configuration. Clients authenticate with SCRAM-SHA-512 on CLIENT; the brokers replicate over BROKER
     * as the SCRAM user {@code broker}; the controllers' quorum and the brokers' registrations and heartbeats go over
     * CONTROLLER with SASL PLAIN, the same {@code broker} user given statically in the listener's JAAS line (a
     * controller cannot check SCRAM before it has read the metadata log that holds the SCRAM credentials). Only
     * {@code broker} and {@code admin} are super users; every other principal gets what an ACL grants and nothing
     * else.
     */
    Path writeProperties(String voters, short replication, int minInSync, String brokerPassword) {
        String text = """
                process.roles=broker,controller
                node.id=%1$d
                controller.quorum.voters=%2$s
                listeners=CLIENT://%3$s:%4$d,BROKER://%3$s:%5$d,CONTROLLER://%3$s:%6$d
                advertised.listeners=CLIENT://%3$s:%4$d,BROKER://%3$s:%5$d
                listener.security.protocol.map=CLIENT:SASL_PLAINTEXT,BROKER:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT
                inter.broker.listener.name=BROKER
                controller.listener.names=CONTROLLER
                sasl.enabled.mechanisms=SCRAM-SHA-512
                sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
                sasl.mechanism.controller.protocol=PLAIN
                listener.name.client.sasl.enabled.mechanisms=SCRAM-SHA-512
                listener.name.client.scram-sha-512.sasl.jaas.config=\
                org.apache.kafka.common.security.scram.ScramLoginModule required;
                listener.name.broker.sasl.enabled.mechanisms=SCRAM-SHA-512
                listener.name.broker.scram-sha-512.sasl.jaas.config=\
                org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="%7$s";
                listener.name.controller.sasl.enabled.mechanisms=PLAIN
                listener.name.controller.plain.sasl.jaas.config=\
                org.apache.kafka.common.security.plain.PlainLoginModule required username="broker" password="%7$s" \
                user_broker="%7$s";
                authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
                allow.everyone.if.no.acl.found=false
                super.users=User:broker;User:admin
                log.dirs=%8$s
                num.partitions=3
                default.replication.factor=%9$d
                min.insync.replicas=%10$d
                unclean.leader.election.enable=false
                auto.create.topics.enable=false
                group.initial.rebalance.delay.ms=0
                offsets.topic.replication.factor=%9$d
                transaction.state.log.replication.factor=%9$d
                transaction.state.log.min.isr=%10$d
                share.coordinator.state.topic.replication.factor=%9$d
                share.coordinator.state.topic.min.isr=%10$d
                # Fewer partitions than the default 50 for the internal topics: 150 replicas each on two cores
                # would make the first consumer group and the first transaction wait for nothing useful.
                offsets.topic.num.partitions=6
                transaction.state.log.num.partitions=6
                num.network.threads=2
                num.io.threads=4
                # A killed node is fenced (its partitions led elsewhere, it leaves their ISRs) once its session
                # expires; the default 9 s would make every kill and every restart that much longer.
                broker.session.timeout.ms=3000
                broker.heartbeat.interval.ms=500
                """.formatted(id, voters, LoopbackPorts.HOST, clientPort, brokerPort, controllerPort, brokerPassword,
                dataDir(), replication, minInSync);
        Path file = dir.resolve("server.properties");
        KafkaPasswords.writeSecret(file, text);
        return file;
    }

    /** Starts {@code StorageTool format} for this node; the caller waits (the nodes of a cluster format together). */
    ChildProcess startFormat(Path properties, String clusterId, List<String> scramCredentials) {
        List<String> args = new ArrayList<>(List.of("format", "-t", clusterId, "-c", properties.toString()));
        for (String credential : scramCredentials) {
            args.add("--add-scram");
            args.add(credential);
        }
        return runner.java("kafka-format-" + id, List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), STORAGE_TOOL, args,
                Map.of());
    }

    static void awaitFormatted(ChildProcess tool, Duration timeout) {
        int exit = tool.waitFor(timeout);
        if (exit != 0) {
            throw new IllegalStateException(STORAGE_TOOL + " format (" + tool.name() + ") exited with " + exit
                    + "; its output ends:\n" + tool.tail(30));
        }
    }

    synchronized void launch(Path properties) {
        if (isAlive()) {
            throw new IllegalStateException("Kafka node " + id + " is already running (pid " + process.pid() + ")");
        }
        starts++;
        process = runner.java("kafka-" + id + "-" + starts, JVM_ARGS, "kafka.Kafka", List.of(properties.toString()),
                Map.of());
    }

    /** Waits until the node accepts connections on its client port; fails with its log if it exits first. */
    void awaitListening(Duration timeout) {
        ChildProcess started = process();
        LoopbackPorts.awaitListening(started, clientPort, timeout, () -> started.tail(30));
    }

    synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** The running (or last) process; null before the first start. */
    synchronized ChildProcess process() {
        return process;
    }

    /** SIGKILL, as in a crash: no controlled shutdown. */
    synchronized void kill() {
        if (process != null) {
            process.kill();
        }
    }

    /** SIGTERM: a controlled shutdown (its partitions' leadership moves first), SIGKILL only if it hangs. */
    synchronized void stop() {
        if (process != null) {
            process.close();
        }
    }
}
