package dev.onejob.stack.infra;

import dev.onejob.core.config.Env;
import dev.onejob.core.kafka.KafkaAcls;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Apache Kafka as an authenticated cluster of {@code size} combined KRaft broker+controller nodes, each its own
 * process ({@link KafkaNode}), so a run can kill, stop and restart any one of them on its data. Every client
 * authenticates with SASL/SCRAM-SHA-512 and gets only what its ACLs grant ({@code StandardAuthorizer},
 * {@code allow.everyone.if.no.acl.found=false}); {@code broker} (replication and the controller quorum) and
 * {@code admin} are the only super users. Topics have {@code min(3, size)} replicas and
 * {@code min.insync.replicas = min(2, size)}, unclean leader election is off.
 *
 * <p>The SCRAM users ({@code admin}, {@code broker} and those given) are created when the storage is formatted,
 * with passwords generated then and kept in {@code <dir>/credentials/<user>.password} (0600). Owns {@code dir}:
 * {@code node-<id>/} per node and {@code credentials/}; the nodes' logs go to the runner's log directory.
 */
public final class KafkaCluster implements AutoCloseable {
    public static final String ADMIN = "admin";
    public static final String BROKER = "broker";
    /** The variables {@code dev.onejob.core.kafka.KafkaSecurity} reads. */
    public static final String SECURITY_PROTOCOL = "KAFKA_SECURITY_PROTOCOL";
    public static final String SASL_MECHANISM = "KAFKA_SASL_MECHANISM";
    public static final String SASL_USERNAME = "KAFKA_SASL_USERNAME";
    public static final String SASL_PASSWORD_FILE = "KAFKA_SASL_PASSWORD_FILE";
    private static final Logger LOG = LoggerFactory.getLogger(KafkaCluster.class);
    private static final Duration FORMAT_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration STARTUP = Duration.ofMinutes(3);

    private final Path dir;
    private final List<KafkaNode> nodes = new ArrayList<>();
    private final Set<String> users = new LinkedHashSet<>();
    private final KafkaPasswords passwords;
    private final short replication;
    private final int minInSync;

    /**
     * A cluster of {@code size} nodes whose files live in {@code dir}, with SCRAM users {@code admin},
     * {@code broker} and {@code users}; picks every node's ports now. Nothing runs until {@link #start()}.
     */
    public KafkaCluster(ProcessRunner runner, Path dir, int size, Collection<String> users) {
        if (size < 1 || size > 9) {
            throw new IllegalArgumentException("a cluster has 1 to 9 nodes, not " + size);
        }
        this.dir = dir.toAbsolutePath();
        this.passwords = new KafkaPasswords(this.dir.resolve("credentials"));
        this.users.addAll(List.of(ADMIN, BROKER));
        this.users.addAll(users);
        this.users.forEach(passwords::file);
        this.replication = (short) Math.min(3, size);
        this.minInSync = Math.min(2, size);
        Set<Integer> ports = new HashSet<>();
        for (int id = 1; id <= size; id++) {
            nodes.add(new KafkaNode(runner, id, this.dir.resolve("node-" + id), ports));
        }
    }

    /**
     * Formats every node on the first start (all with the same cluster id and SCRAM users), starts them all and
     * returns once an admin client, as {@code admin}, sees every broker registered and unfenced.
     */
    public synchronized void start() {
        long formatted = nodes.stream().filter(KafkaNode::formatted).count();
        if (formatted == 0) {
            format();
        } else if (formatted < nodes.size() || !users.stream().allMatch(passwords::has)) {
            throw new IllegalStateException(dir + " holds a cluster formatted for other nodes or users; delete it"
                    + " to start afresh");
        }
        for (KafkaNode node : nodes) {
            if (!node.isAlive()) {
                node.launch(properties(node));
            }
        }
        try {
            for (KafkaNode node : nodes) {
                node.awaitListening(STARTUP);
            }
            new ClusterAdmin(this).awaitBrokers(nodeIds(), STARTUP);
        } catch (RuntimeException e) {
            nodes.forEach(KafkaNode::kill);
            throw e;
        }
        LOG.info("Kafka cluster of {} nodes is ready on {}", nodes.size(), bootstrapServers());
    }

    private void format() {
        String clusterId = Uuid.randomUuid().toString();
        List<String> credentials = users.stream().map(user -> "SCRAM-SHA-512=[name=" + user + ",password="
                + passwords.ensure(user) + "]").toList();
        LOG.info("formatting {} nodes under {} for cluster {} with SCRAM users {}", nodes.size(), dir, clusterId,
                users);
        List<ChildProcess> tools = new ArrayList<>();
        for (KafkaNode node : nodes) {
            tools.add(node.startFormat(properties(node), clusterId, credentials));
        }
        tools.forEach(tool -> KafkaNode.awaitFormatted(tool, FORMAT_TIMEOUT));
    }

    private Path properties(KafkaNode node) {
        String voters = nodes.stream().map(KafkaNode::voter).collect(Collectors.joining(","));
        return node.writeProperties(voters, replication, minInSync, passwords.ensure(BROKER));
    }

    /** Starts one stopped or killed node on its data and ports; returns once it is registered and unfenced again. */
    public void start(int nodeId) {
        KafkaNode node = node(nodeId);
        synchronized (this) {
            node.launch(properties(node));
        }
        node.awaitListening(STARTUP);
        new ClusterAdmin(this).awaitBrokers(Set.of(nodeId), STARTUP);
        LOG.info("Kafka node {} (pid {}) is back", nodeId, node.process().pid());
    }

    /** SIGKILL, as in a crash. */
    public void kill(int nodeId) {
        node(nodeId).kill();
        LOG.info("killed Kafka node {}", nodeId);
    }

    /** SIGTERM: a controlled shutdown. */
    public void stop(int nodeId) {
        node(nodeId).stop();
        LOG.info("stopped Kafka node {}", nodeId);
    }

    /** Kills the node and starts it again on the same data and ports. */
    public void restart(int nodeId) {
        kill(nodeId);
        start(nodeId);
    }

    /**
     * Each node in turn: a controlled stop, a start, and a wait until every partition (the internal topics' too)
     * has all its replicas in sync again before the next node goes down, so no acknowledged write ever rests on
     * one copy.
     */
    public void rollingRestart() {
        ClusterAdmin admin = new ClusterAdmin(this);
        for (KafkaNode node : nodes) {
            stop(node.id());
            start(node.id());
            admin.awaitFullIsr(STARTUP);
        }
    }

    /** The id of the partition's leader, or -1 while it has none. */
    public int leaderOf(String topic, int partition) {
        return new ClusterAdmin(this).leaderOf(topic, partition);
    }

    /** Waits until every partition of every topic has all its replicas in sync. */
    public void awaitFullIsr(Duration timeout) {
        new ClusterAdmin(this).awaitFullIsr(timeout);
    }

    /**
     * Creates onejob's topics and the two topics of each of the {@code principals}' producers (3 partitions, the
     * cluster's replication and {@code min.insync.replicas}), then the ACLs {@link KafkaAcls} derives, as
     * {@code admin}; returns once a service principal is let in by them.
     */
    public void setup(KafkaPrincipals principals) {
        List<String> missing = principals.allNames().stream().filter(name -> !users.contains(name)).toList();
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("the cluster has no SCRAM users for " + missing
                    + "; name them when creating it");
        }
        List<String> topics = new ArrayList<>(KafkaTopics.allNames());
        topics.addAll(principals.producerTopics());
        new ClusterAdmin(this).ensureTopics(topics, STARTUP);
        try (Admin admin = Admin.create(adminConfig().admin("onejob-cluster-setup"))) {
            KafkaAcls.apply(admin, KafkaAcls.bindings(principals));
        }
        new ClusterAdmin(this).awaitAllowed(principals.services().worker(), STARTUP);
    }

    public KafkaTopics.Layout layout() {
        return new KafkaTopics.Layout(3, replication, minInSync);
    }

    public String bootstrapServers() {
        return nodes.stream().map(KafkaNode::clientAddress).collect(Collectors.joining(","));
    }

    /** The settings of an admin client authenticated as the super user {@code admin}. */
    public KafkaConfig adminConfig() {
        return KafkaConfig.fromEnv(clientEnv(ADMIN));
    }

    /** The settings of any client authenticated as {@code user}. */
    public KafkaConfig clientConfig(String user) {
        return KafkaConfig.fromEnv(clientEnv(user));
    }

    /**
     * The {@code KAFKA_*} environment a service process running as {@code user} needs: where the brokers are, SASL
     * with SCRAM-SHA-512, its user name and password file, and the topic layout its startup check expects.
     */
    public Map<String, String> clientEnv(String user) {
        if (!users.contains(user)) {
            throw new IllegalArgumentException("the cluster has no SCRAM user " + user);
        }
        Map<String, String> env = new LinkedHashMap<>();
        env.put(Env.KAFKA_BOOTSTRAP_SERVERS, bootstrapServers());
        env.put(SECURITY_PROTOCOL, "SASL_PLAINTEXT");
        env.put(SASL_MECHANISM, "SCRAM-SHA-512");
        env.put(SASL_USERNAME, user);
        env.put(SASL_PASSWORD_FILE, passwordFile(user).toString());
        env.put(Env.KAFKA_REPLICATION_FACTOR, Short.toString(replication));
        env.put(Env.KAFKA_MIN_INSYNC_REPLICAS, Integer.toString(minInSync));
        return env;
    }

    /** The file holding {@code user}'s password (mode 0600), written when the cluster was formatted. */
    public Path passwordFile(String user) {
        return passwords.file(user);
    }

    /** A client configuration for Kafka's own tools as {@code user} ({@code --command-config}), mode 0600. */
    public Path clientPropertiesFile(String user) {
        return passwords.clientProperties(user);
    }

    public Set<Integer> nodeIds() {
        return nodes.stream().map(KafkaNode::id).collect(Collectors.toCollection(LinkedHashSet::new));
    }

    /** The node's running (or last) process, e.g. to pause it with {@code SIGSTOP}; null before its first start. */
    public ChildProcess process(int nodeId) {
        return node(nodeId).process();
    }

    public Path dir() {
        return dir;
    }

    private KafkaNode node(int nodeId) {
        return nodes.stream().filter(n -> n.id() == nodeId).findFirst().orElseThrow(() ->
                new IllegalArgumentException("no Kafka node " + nodeId + "; the nodes are " + nodeIds()));
    }

    /** Stops every node with SIGTERM, all at once (one by one, the last ones would wait for a lost quorum). */
    @Override
    public void close() {
        List<Thread> stopping = new ArrayList<>();
        for (KafkaNode node : nodes) {
            Thread thread = new Thread(node::stop, "stop-kafka-" + node.id());
            thread.start();
            stopping.add(thread);
        }
        for (Thread thread : stopping) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                nodes.forEach(KafkaNode::kill);
                return;
            }
        }
    }
}
