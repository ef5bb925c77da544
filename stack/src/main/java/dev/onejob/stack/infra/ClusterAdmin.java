package dev.onejob.stack.infra;

import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.kafka.Topics;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link KafkaCluster} asks of itself through Kafka's Admin API, as its super user {@code admin} (or, to
 * see whether the ACLs have arrived, as a service): which brokers are registered and unfenced, who leads a
 * partition, whether every partition has all its replicas in sync; and it creates the topics. Each call opens a short-lived admin client, so
 * a node killed in between costs nothing but a reconnect.
 */
final class ClusterAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaCluster.class);
    private static final Duration CALL = Duration.ofSeconds(10);
    private static final String ADMIN = KafkaCluster.ADMIN;

    private final KafkaCluster cluster;

    ClusterAdmin(KafkaCluster cluster) {
        this.cluster = cluster;
    }

    /**
     * {@link KafkaTopics#ensure} checks the topics right after creating them, and the broker it asks may not have
     * heard of them yet on a cluster; creating what exists changes nothing, so it is simply asked again.
     */
    void ensureTopics(List<String> topics, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                KafkaTopics.ensure(cluster.adminConfig(), topics, cluster.layout());
                return;
            } catch (IllegalStateException e) {
                if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
                    throw e;
                }
                LOG.info("the topics are not known to every broker yet ({}); checking again", e.getCause().toString());
                LoopbackPorts.pause(250);
            }
        }
    }

    /** Waits until every broker in {@code ids} is registered and unfenced (listed by describeCluster). */
    void awaitBrokers(Set<Integer> ids, Duration timeout) {
        await(timeout, "brokers " + ids + " registered and unfenced", ADMIN, admin -> {
            Set<Integer> live = admin.describeCluster().nodes().get(CALL.toSeconds(), TimeUnit.SECONDS).stream()
                    .map(Node::id).collect(Collectors.toSet());
            return live.containsAll(ids) ? null : "describeCluster lists " + live;
        });
    }

    /** Waits until every partition of every topic, the internal ones included, has all its replicas in sync. */
    void awaitFullIsr(Duration timeout) {
        await(timeout, "every partition's replicas back in sync", ADMIN, admin -> {
            Set<String> names = admin.listTopics(new ListTopicsOptions().listInternal(true)).names()
                    .get(CALL.toSeconds(), TimeUnit.SECONDS);
            List<String> behind = describe(admin, names).values().stream()
                    .flatMap(topic -> topic.partitions().stream()
                            .filter(p -> p.isr().size() < p.replicas().size())
                            .map(p -> topic.name() + "-" + p.partition() + " isr " + ids(p.isr())))
                    .toList();
            return behind.isEmpty() ? null : behind.size() + " partitions behind, e.g. " + behind.get(0);
        });
    }

    /** The id of the partition's leader, or -1 while it has none. */
    int leaderOf(String topic, int partition) {
        int[] leader = {-1};
        await(CALL.multipliedBy(3), "the description of " + topic, ADMIN, admin -> {
            TopicPartitionInfo info = describe(admin, List.of(topic)).get(topic).partitions().get(partition);
            leader[0] = info.leader() == null || info.leader().isEmpty() ? -1 : info.leader().id();
            return null;
        });
        return leader[0];
    }

    /** Waits until {@code user} is let in by its ACLs (they reach every broker through the metadata log). */
    void awaitAllowed(String user, Duration timeout) {
        String topic = Topics.ATTEMPT_COMMANDS.name();
        await(timeout, user + " allowed to describe " + topic, user, admin ->
                admin.listTopics().names().get(CALL.toSeconds(), TimeUnit.SECONDS).contains(topic) ? null
                        : user + " does not see " + topic + " yet");
    }

    private static Map<String, TopicDescription> describe(Admin admin, Collection<String> topics)
            throws ExecutionException, InterruptedException, TimeoutException {
        return admin.describeTopics(topics).allTopicNames().get(CALL.toSeconds(), TimeUnit.SECONDS);
    }

    private static String ids(List<Node> nodes) {
        return nodes.stream().map(n -> Integer.toString(n.id())).collect(Collectors.joining(",", "[", "]"));
    }

    /** One check against the cluster: null when it holds, else what is still missing. */
    private interface Check {
        String missing(Admin admin) throws ExecutionException, InterruptedException, TimeoutException;
    }

    private void await(Duration timeout, String what, String user, Check check) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Object> config = cluster.clientConfig(user).admin("onejob-cluster-" + user);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CALL.toMillis() / 2);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CALL.toMillis());
        String problem = "nothing answered";
        try (Admin admin = Admin.create(config)) {
            while (System.nanoTime() < deadline) {
                try {
                    problem = check.missing(admin);
                    if (problem == null) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    problem = (e instanceof ExecutionException ? e.getCause() : e).toString();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for " + what, e);
                }
                LoopbackPorts.pause(250);
            }
        }
        throw new IllegalStateException("Kafka cluster on " + cluster.bootstrapServers() + ": no " + what + " within "
                + timeout.toSeconds() + " s (" + problem + ")");
    }
}
