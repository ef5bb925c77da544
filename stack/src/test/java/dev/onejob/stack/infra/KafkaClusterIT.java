package dev.onejob.stack.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.kafka.Topics;
import dev.onejob.testing.Await;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Three real Kafka nodes, each its own process, with SASL/SCRAM and the authorizer: the topics' layout, a
 * producer's writes (allowed on its own topic, refused on the completions), a partition leader's crash with
 * acknowledged writes going on over the two replicas left and the third catching up when it is back, and a rolling
 * restart under a steady writer.
 */
class KafkaClusterIT {
    private static final String PRODUCER = "shop";
    private static final KafkaPrincipals PRINCIPALS = new KafkaPrincipals(KafkaPrincipals.OwnerFrom.PRINCIPAL,
            KafkaPrincipals.NONE.services(), List.of(), Map.of(PRODUCER, Set.of("alice")));
    private static final String TOPIC = KafkaPrincipals.requestTopic(PRODUCER);

    /** A three-node cluster of its own under {@code name}, started, with onejob's topics and the principals' ACLs. */
    private static KafkaCluster threeNodes(String name) throws IOException {
        KafkaCluster cluster = new KafkaCluster(InfraRuns.runner(name),
                InfraRuns.fresh(InfraRuns.dir(name).resolve("cluster")), 3, PRINCIPALS.allNames());
        try {
            cluster.start();
            cluster.setup(PRINCIPALS);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    @Test
    void acknowledgedWritesOutliveALeadersCrashAndOnlyWhatTheAclsGrantIsAllowed() throws Exception {
        // given a three-node cluster with onejob's topics and ACLs
        try (KafkaCluster cluster = threeNodes("kafka-cluster")) {

            // then every topic has three replicas, min.insync.replicas 2 and no unclean leader election
            List<String> topics = new ArrayList<>(KafkaTopics.allNames());
            topics.addAll(PRINCIPALS.producerTopics());
            try (Admin admin = Admin.create(cluster.adminConfig().admin("kafka-cluster-it"))) {
                for (TopicDescription topic : admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS)
                        .values()) {
                    for (TopicPartitionInfo partition : topic.partitions()) {
                        assertEquals(3, partition.replicas().size(), topic.name() + "-" + partition.partition());
                    }
                }
                List<ConfigResource> resources = topics.stream()
                        .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name)).toList();
                for (Map.Entry<ConfigResource, Config> config : admin.describeConfigs(resources).all()
                        .get(30, TimeUnit.SECONDS).entrySet()) {
                    assertEquals("2", config.getValue().get("min.insync.replicas").value(), config.getKey().name());
                    assertEquals("false", config.getValue().get("unclean.leader.election.enable").value(),
                            config.getKey().name());
                }
            }

            try (KafkaProducer<String, String> producer = producer(cluster)) {
                // when the producer writes its own topic with acks=all, then the write is acknowledged
                producer.send(new ProducerRecord<>(TOPIC, 0, "alice", "before the crash")).get(30, TimeUnit.SECONDS);

                // and a forged completion is refused by the broker
                try (KafkaProducer<String, String> forger = producer(cluster)) {
                    ExecutionException refused = assertThrows(ExecutionException.class, () -> forger.send(
                            new ProducerRecord<>(Topics.ATTEMPT_COMPLETIONS.name(), "job-1", "SUCCEEDED"))
                            .get(30, TimeUnit.SECONDS));
                    assertInstanceOf(TopicAuthorizationException.class, refused.getCause());
                }

                // when the partition's leader is killed
                int leader = cluster.leaderOf(TOPIC, 0);
                assertNotEquals(-1, leader);
                cluster.kill(leader);

                // then another node leads it, and an acks=all write goes through the two replicas left
                Await.until(Duration.ofSeconds(60), "another node to lead " + TOPIC + "-0", () -> {
                    int now = cluster.leaderOf(TOPIC, 0);
                    return now != -1 && now != leader;
                });
                producer.send(new ProducerRecord<>(TOPIC, 0, "alice", "after the crash")).get(60, TimeUnit.SECONDS);
                assertEquals(2, isr(cluster).size());

                // when the killed node starts again, then it catches up and the partition is fully in sync
                cluster.start(leader);
                Await.until(Duration.ofSeconds(90), "three replicas of " + TOPIC + "-0 in sync",
                        () -> isr(cluster).size() == 3);
                assertEquals(List.of("before the crash", "after the crash"), readAll(cluster, 2));
            }
        }
    }

    @Test
    void aRollingRestartRestartsEveryNodeWhileEveryWriteIsAcknowledgedAndKept() throws Exception {
        // given a three-node cluster and a producer writing with acks=all, one record after the other, all along
        try (KafkaCluster cluster = threeNodes("kafka-rolling")) {
            Map<Integer, Long> pids = new HashMap<>();
            cluster.nodeIds().forEach(id -> pids.put(id, cluster.process(id).pid()));
            List<String> acknowledged = new CopyOnWriteArrayList<>();
            List<Exception> failed = new CopyOnWriteArrayList<>();
            AtomicBoolean rolling = new AtomicBoolean(true);
            try (KafkaProducer<String, String> producer = producer(cluster)) {
                Thread writer = new Thread(() -> {
                    for (int i = 0; rolling.get(); i++) {
                        try {
                            producer.send(new ProducerRecord<>(TOPIC, 0, "alice", Integer.toString(i)))
                                    .get(60, TimeUnit.SECONDS);
                            acknowledged.add(Integer.toString(i));
                        } catch (Exception e) {
                            failed.add(e);
                        }
                    }
                }, "rolling-writer");
                writer.start();

                // when every node is stopped and started in turn
                cluster.rollingRestart();
                rolling.set(false);
                writer.join();

                // then each node is a new process, no write failed, and every acknowledged one is there in order
                cluster.nodeIds().forEach(id -> assertNotEquals(pids.get(id), cluster.process(id).pid(), "node " + id));
                assertEquals(List.of(), failed);
                assertEquals(acknowledged, readAll(cluster, acknowledged.size()));
                assertEquals(3, isr(cluster).size());
            }
        }
    }

    private static KafkaProducer<String, String> producer(KafkaCluster cluster) {
        return new KafkaProducer<>(cluster.clientConfig(PRODUCER).producer("kafka-cluster-it"), new StringSerializer(),
                new StringSerializer());
    }

    private static List<Integer> isr(KafkaCluster cluster) {
        try (Admin admin = Admin.create(cluster.adminConfig().admin("kafka-cluster-it-isr"))) {
            return admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC)
                    .partitions().get(0).isr().stream().map(node -> node.id()).toList();
        } catch (Exception e) {
            throw new AssertionError("cannot describe " + TOPIC, e);
        }
    }

    /** Partition 0 of the producer's topic from the start, as {@code admin} (no group, so no group ACL). */
    private static List<String> readAll(KafkaCluster cluster, int expected) {
        Map<String, Object> config = cluster.adminConfig().consumer("kafka-cluster-it", "kafka-cluster-it-reader");
        config.remove("group.id");
        List<String> values = new ArrayList<>();
        TopicPartition partition = new TopicPartition(TOPIC, 0);
        try (var consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            Await.until(Duration.ofSeconds(30), expected + " records on " + partition, () -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
                return values.size() >= expected;
            });
        }
        return values;
    }
}
