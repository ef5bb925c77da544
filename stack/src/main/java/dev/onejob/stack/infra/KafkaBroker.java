package dev.onejob.stack.infra;

import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Apache Kafka itself ({@code kafka.Kafka} from kafka_2.13) as a separate process, one combined KRaft
 * broker+controller, so a run (the chaos run) can SIGKILL it and start it again on the same data. Owns its directory
 * ({@code server.properties}, {@code data/}) and its two loopback ports, chosen once and kept across restarts so
 * clients reconnect to the same address. Each start logs to its own file: {@code kafka-1.log}, {@code kafka-2.log}.
 */
public final class KafkaBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaBroker.class);
    private static final String STORAGE_TOOL = "kafka.tools.StorageTool";
    private static final Duration FORMAT_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration STARTUP = Duration.ofMinutes(2);
    // The logging module's logback.xml keeps the broker's internals at ERROR; its start/stop lines stay visible.
    private static final List<String> JVM_ARGS = List.of("-Xmx512m", "-Xms128m",
            "-Donejob.log.broker.lifecycle=INFO");

    private final ProcessRunner runner;
    private final Path dir;
    private final int port;
    private final int controllerPort;
    private ChildProcess process;
    private int starts;

    /** A broker whose files live in {@code dir}; picks its two free ports now. Nothing runs until {@link #start}. */
    public KafkaBroker(ProcessRunner runner, Path dir) {
        this.runner = runner;
        this.dir = dir.toAbsolutePath();
        this.port = LoopbackPorts.free();
        int controller = LoopbackPorts.free();
        while (controller == port) {
            controller = LoopbackPorts.free();
        }
        this.controllerPort = controller;
    }

    /** Formats the storage on the first start only, then starts the broker; returns once it answers an Admin. */
    public synchronized void start() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("the Kafka broker is already running (pid " + process.pid() + ")");
        }
        Path properties = writeProperties();
        if (!Files.exists(dataDir().resolve("meta.properties"))) {
            format(properties);
        }
        starts++;
        process = runner.java("kafka-" + starts, JVM_ARGS, "kafka.Kafka", List.of(properties.toString()), Map.of());
        try {
            awaitReady(process);
        } catch (RuntimeException e) {
            process.kill();
            throw e;
        }
        LOG.info("Kafka broker (pid {}, start {}) is ready on {}", process.pid(), starts, bootstrapServers());
    }

    /** SIGKILL, as in a crash: no controlled shutdown, no flush beyond what the OS already has. */
    public synchronized void kill() {
        if (process != null) {
            process.kill();
            LOG.info("killed the Kafka broker (pid {})", process.pid());
        }
    }

    /** Kills the broker and starts it again on the same data and ports. */
    public synchronized void restart() {
        kill();
        start();
    }

    public String bootstrapServers() {
        return LoopbackPorts.HOST + ":" + port;
    }

    public Path dataDir() {
        return dir.resolve("data");
    }

    /** The running (or last) broker process, e.g. to pause it with {@code SIGSTOP}; null before the first start. */
    public synchronized ChildProcess process() {
        return process;
    }

    /** SIGTERM (a controlled shutdown), then SIGKILL if it takes too long. */
    @Override
    public synchronized void close() {
        if (process != null) {
            process.close();
        }
    }

    private Path writeProperties() {
        String text = """
                process.roles=broker,controller
                node.id=1
                controller.quorum.voters=1@%1$s:%3$d
                listeners=PLAINTEXT://%1$s:%2$d,CONTROLLER://%1$s:%3$d
                advertised.listeners=PLAINTEXT://%1$s:%2$d
                listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
                controller.listener.names=CONTROLLER
                inter.broker.listener.name=PLAINTEXT
                log.dirs=%4$s
                num.partitions=3
                auto.create.topics.enable=false
                group.initial.rebalance.delay.ms=0
                # A single node: internal topics with the default replication of 3 could never be created.
                offsets.topic.replication.factor=1
                transaction.state.log.replication.factor=1
                transaction.state.log.min.isr=1
                share.coordinator.state.topic.replication.factor=1
                share.coordinator.state.topic.min.isr=1
                # A restarted node waits for its pre-crash broker session to expire before it is unfenced; the
                # default 9 s would make every restart that much longer. Heartbeats never leave this process.
                broker.session.timeout.ms=3000
                broker.heartbeat.interval.ms=500
                """.formatted(LoopbackPorts.HOST, port, controllerPort, dataDir());
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve("server.properties");
            Files.writeString(file, text);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the broker's properties into " + dir, e);
        }
    }

    private void format(Path properties) {
        String clusterId = Uuid.randomUuid().toString();
        LOG.info("formatting {} for cluster {}", dataDir(), clusterId);
        ChildProcess tool = runner.java("kafka-format", List.of("-Xmx256m"), STORAGE_TOOL,
                List.of("format", "-t", clusterId, "-c", properties.toString()), Map.of());
        int exit = tool.waitFor(FORMAT_TIMEOUT);
        if (exit != 0) {
            throw new IllegalStateException(STORAGE_TOOL + " format exited with " + exit + "; its output ends:\n"
                    + tool.tail(30));
        }
    }

    /** Ready = an Admin's describeCluster answers; waiting for the port first keeps its connect warnings away. */
    private void awaitReady(ChildProcess broker) {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        LoopbackPorts.awaitListening(broker, port, STARTUP, () -> broker.tail(30));
        Map<String, Object> config = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        String problem = "it exited";
        try (Admin admin = Admin.create(config)) {
            while (broker.isAlive() && System.nanoTime() < deadline) {
                try {
                    if (!admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                    problem = "describeCluster listed no nodes";
                } catch (ExecutionException | TimeoutException e) {
                    problem = e.toString();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for the Kafka broker", e);
                }
                LoopbackPorts.pause(200);
            }
        }
        throw new IllegalStateException("the Kafka broker on " + bootstrapServers() + " is not usable (" + problem
                + "); its log ends:\n" + broker.tail(30));
    }
}
