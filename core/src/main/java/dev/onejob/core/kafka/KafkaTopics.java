package dev.onejob.core.kafka;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Env;
import dev.onejob.core.config.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates onejob's topics explicitly at startup (auto-creation stalls the first producer for a long time and picks
 * defaults nobody chose), then verifies every topic against the configured {@link Layout}: a topic with fewer
 * replicas or a lower {@code min.insync.replicas} than configured is reported and the service refuses to start
 * ({@link ConfigException}), rather than writing with {@code acks=all} to fewer copies than promised. A topic whose
 * {@code max.message.bytes} is below what onejob sends on it is raised to it (that only ever accepts more).
 */
public final class KafkaTopics {
    private static final Logger log = LoggerFactory.getLogger(KafkaTopics.class);
    /** What a topic carrying a job request (the request itself, or an attempt command that quotes it) must accept. */
    static final int REQUEST_TOPIC_MAX_MESSAGE_BYTES = KafkaConfig.MAX_REQUEST_RECORD_BYTES + 64 * 1024;
    /** How long {@code attempt-chunks} keeps a piece of a streamed answer. */
    static final Duration CHUNK_RETENTION = Duration.ofHours(1);
    private static final Set<String> REQUEST_TOPICS = Set.of(Topics.JOB_REQUESTS.name(), Topics.JOB_REQUESTS_DLQ.name(),
            Topics.ATTEMPT_COMMANDS.name(), Topics.ATTEMPT_COMMANDS_DLQ.name());
    /** What a topic carrying an answer (a completion, a job's result) must accept: the largest answer and more. */
    static final int ANSWER_TOPIC_MAX_MESSAGE_BYTES = KafkaConfig.MAX_ANSWER_RECORD_BYTES;
    private static final Set<String> ANSWER_TOPICS = Set.of(Topics.ATTEMPT_COMPLETIONS.name(),
            Topics.ATTEMPT_COMPLETIONS_DLQ.name(), Topics.JOB_RESULTS.name());

    /** The {@code max.message.bytes} onejob needs on {@code name}, or 0 when the broker's default will do. */
    static int requiredMaxMessageBytes(String name) {
        return ANSWER_TOPICS.contains(name) ? ANSWER_TOPIC_MAX_MESSAGE_BYTES
                : REQUEST_TOPICS.contains(name) ? REQUEST_TOPIC_MAX_MESSAGE_BYTES : 0;
    }

    /**
     * How topics are laid out: {@code KAFKA_TOPIC_PARTITIONS} (default 3), {@code KAFKA_REPLICATION_FACTOR} (default
     * 1, one broker; 3 on a cluster), {@code KAFKA_MIN_INSYNC_REPLICAS} (default: the replication factor minus one,
     * at least 1 and at most 2).
     */
    public record Layout(int partitions, short replicationFactor, int minInSyncReplicas) {
        public Layout {
            if (minInSyncReplicas > replicationFactor) {
                throw new ConfigException(Env.KAFKA_MIN_INSYNC_REPLICAS + " (" + minInSyncReplicas + ") cannot be"
                        + " above " + Env.KAFKA_REPLICATION_FACTOR + " (" + replicationFactor + ")");
            }
        }

        public static Layout single(int partitions) {
            return new Layout(partitions, (short) 1, 1);
        }

        public static Layout fromEnv(Map<String, String> env) {
            Settings settings = Settings.of(env);
            int replication = settings.integer(Env.KAFKA_REPLICATION_FACTOR, 1, 1, 32);
            return new Layout(settings.integer(Env.KAFKA_TOPIC_PARTITIONS, 3, 1, 10_000), (short) replication,
                    settings.integer(Env.KAFKA_MIN_INSYNC_REPLICAS, Math.max(1, Math.min(2, replication - 1)), 1,
                            32));
        }
    }

    private KafkaTopics() {
    }

    /** {@link #ensure(String, Collection, Layout)} on one broker: {@code replication} copies, min.insync 1. */
    public static void ensure(String bootstrapServers, Collection<String> names, int partitions, short replication) {
        ensure(bootstrapServers, names, new Layout(partitions, replication, 1));
    }

    public static void ensure(String bootstrapServers, Collection<String> names, Layout layout) {
        ensure(new KafkaConfig(bootstrapServers), names, layout);
    }

    /** The same, with the client's security settings (a service's own {@link KafkaConfig}). */
    public static void ensure(KafkaConfig kafka, Collection<String> names, Layout layout) {
        Map<String, Object> props = kafka.admin("onejob-topics");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        try (Admin admin = Admin.create(props)) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (String name : names) {
                if (!existing.contains(name)) {
                    Map<String, String> configs = new HashMap<>();
                    configs.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(layout.minInSyncReplicas()));
                    if (name.equals(Topics.ATTEMPT_CHUNKS.name())) {
                        // A live view: a stream reads a piece within seconds or never.
                        configs.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(CHUNK_RETENTION.toMillis()));
                    }
                    if (requiredMaxMessageBytes(name) > 0) {
                        configs.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                                Integer.toString(requiredMaxMessageBytes(name)));
                    }
                    missing.add(new NewTopic(name, layout.partitions(), layout.replicationFactor()).configs(configs));
                }
            }
            try {
                admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            verify(admin, names, layout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException("cannot create topics " + names + " at " + kafka.bootstrapServers() + ": "
                    + cause.getMessage(), cause);
        }
    }

    /** Reports topics weaker than {@code layout}; raises a too-small message size limit. */
    private static void verify(Admin admin, Collection<String> names, Layout layout)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
        List<ConfigResource> resources = names.stream()
                .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name)).toList();
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(30, TimeUnit.SECONDS);
        List<String> weaker = new ArrayList<>();
        Map<ConfigResource, Collection<AlterConfigOp>> raise = new HashMap<>();
        for (String name : names) {
            int replicas = topics.get(name).partitions().stream().mapToInt(p -> p.replicas().size()).min().orElse(0);
            if (replicas < layout.replicationFactor()) {
                weaker.add(name + " has " + replicas + " replica(s), " + Env.KAFKA_REPLICATION_FACTOR + " is "
                        + layout.replicationFactor());
            }
            Config config = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, name));
            int minInSync = intValue(config, TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, 1);
            if (minInSync < layout.minInSyncReplicas()) {
                weaker.add(name + " has min.insync.replicas " + minInSync + ", " + Env.KAFKA_MIN_INSYNC_REPLICAS
                        + " is " + layout.minInSyncReplicas());
            }
            int maxBytes = intValue(config, TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.MAX_VALUE);
            int required = requiredMaxMessageBytes(name);
            if (maxBytes < required) {
                log.info("event=topic_limit_raised topic={} max_message_bytes={} was={}", name, required, maxBytes);
                raise.put(new ConfigResource(ConfigResource.Type.TOPIC, name), List.of(new AlterConfigOp(
                        new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(required)),
                        AlterConfigOp.OpType.SET)));
            }
        }
        if (!raise.isEmpty()) {
            admin.incrementalAlterConfigs(raise).all().get(30, TimeUnit.SECONDS);
        }
        if (!weaker.isEmpty()) {
            throw new ConfigException("topics weaker than configured (fix the topics, or the settings): "
                    + String.join("; ", weaker));
        }
    }

    private static int intValue(Config config, String name, int fallback) {
        ConfigEntry entry = config == null ? null : config.get(name);
        try {
            return entry == null || entry.value() == null ? fallback : Integer.parseInt(entry.value());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    public static List<String> allNames() {
        return Topics.ALL.stream().map(Topic::name).toList();
    }
}
