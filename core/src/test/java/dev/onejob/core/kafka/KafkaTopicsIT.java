package dev.onejob.core.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.ConfigException;
import dev.onejob.testing.Await;
import dev.onejob.testing.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;

/** Topics are created as configured and verified at every start: a weaker one is reported, never silently used. */
class KafkaTopicsIT {
    private final String bootstrap = TestKafka.shared().bootstrapServers();

    @Test
    void aTopicWithFewerReplicasOrALowerMinInSyncThanConfiguredIsReported() {
        // given the topics, on this one broker (one replica each, min.insync.replicas 1)
        KafkaTopics.ensure(bootstrap, KafkaTopics.allNames(), KafkaTopics.Layout.single(3));

        // when a service is configured for two replicas, two of them in sync
        ConfigException weaker = assertThrows(ConfigException.class, () -> KafkaTopics.ensure(bootstrap,
                KafkaTopics.allNames(), KafkaTopics.Layout.fromEnv(Map.of("KAFKA_REPLICATION_FACTOR", "2",
                        "KAFKA_MIN_INSYNC_REPLICAS", "2"))));

        // then it refuses, naming each topic and both numbers
        assertTrue(weaker.getMessage().contains("attempt-commands has 1 replica(s), KAFKA_REPLICATION_FACTOR is 2"),
                weaker.getMessage());
        assertTrue(weaker.getMessage().contains("race-audit has min.insync.replicas 1, KAFKA_MIN_INSYNC_REPLICAS is 2"),
                weaker.getMessage());
    }

    @Test
    void aRequestCarryingTopicWhoseSizeLimitIsTooSmallIsRaisedToWhatIngestAccepts() throws Exception {
        KafkaTopics.ensure(bootstrap, KafkaTopics.allNames(), KafkaTopics.Layout.single(3));
        ConfigResource commands = new ConfigResource(ConfigResource.Type.TOPIC, Topics.ATTEMPT_COMMANDS.name());
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            // given attempt-commands at the broker's default 1 MiB, while job-requests accepts 4 MiB requests
            admin.incrementalAlterConfigs(Map.of(commands, List.of(new AlterConfigOp(new ConfigEntry(
                    TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1048588"), AlterConfigOp.OpType.SET)))).all().get();
            // (a broker applies a config change asynchronously: wait until it describes the small limit)
            Await.until(Duration.ofSeconds(10), "the 1 MiB limit to be visible",
                    () -> "1048588".equals(limit(admin, commands)));

            // when a service starts
            KafkaTopics.ensure(bootstrap, KafkaTopics.allNames(), KafkaTopics.Layout.single(3));

            // then the limit becomes what an attempt command quoting the largest request needs
            Await.until(Duration.ofSeconds(10), "the raised limit to be visible",
                    () -> Integer.toString(KafkaTopics.REQUEST_TOPIC_MAX_MESSAGE_BYTES).equals(limit(admin, commands)));
            assertEquals(Integer.toString(KafkaTopics.REQUEST_TOPIC_MAX_MESSAGE_BYTES), limit(admin, commands));
        }
    }

    private static String limit(Admin admin, ConfigResource topic) {
        try {
            return admin.describeConfigs(List.of(topic)).all().get().get(topic)
                    .get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG).value();
        } catch (Exception e) {
            throw new IllegalStateException("cannot describe " + topic, e);
        }
    }

    @Test
    void theLayoutComesFromTheEnvironmentWithBoundsAndASaneMinInSync() {
        assertEquals(new KafkaTopics.Layout(3, (short) 1, 1), KafkaTopics.Layout.fromEnv(Map.of()));
        assertEquals(new KafkaTopics.Layout(6, (short) 3, 2), KafkaTopics.Layout.fromEnv(Map.of(
                "KAFKA_TOPIC_PARTITIONS", "6", "KAFKA_REPLICATION_FACTOR", "3")));
        assertThrows(ConfigException.class, () -> KafkaTopics.Layout.fromEnv(Map.of("KAFKA_REPLICATION_FACTOR", "2",
                "KAFKA_MIN_INSYNC_REPLICAS", "3")));
    }
}
