package dev.onejob.core.kafka;

import dev.onejob.core.config.Env;
import dev.onejob.core.config.Settings;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Where Kafka is ({@code KAFKA_BOOTSTRAP_SERVERS}, default {@code localhost:9092}) and the client settings every
 * service shares: idempotent producers that wait for all replicas, consumers that commit by hand and read only
 * committed records. {@code KAFKA_MAX_POLL_INTERVAL_MS} (default Kafka's 300000) bounds how long a consumer may go
 * between polls before the group gives its partitions to another member; onejob's consumers poll continuously (the
 * worker calls providers off its poll thread), so a short value only speeds up the eviction of a frozen process.
 * {@code security} is how every client authenticates ({@link KafkaSecurity}: PLAINTEXT unless configured); every
 * client map this hands out ({@link #common}, {@link #producer}, {@link #consumer}, {@link #admin}) carries it.
 */
public record KafkaConfig(String bootstrapServers, int maxPollIntervalMs, KafkaSecurity security) {
    public static final int DEFAULT_MAX_POLL_INTERVAL_MS = 300_000;

    public static final String DEFAULT_BOOTSTRAP = "localhost:9092";
    /** Job requests may carry large variables; this bounds records on job-requests and its dead letters. */
    public static final int MAX_REQUEST_RECORD_BYTES = 4 * 1024 * 1024;
    /**
     * The largest record onejob writes: a completion or a job result carrying the largest answer it stores
     * ({@code ProviderConfig.ANSWER_BYTES_LIMIT}) with its envelope. The answer topics accept it, and every producer's
     * {@code max.request.size} allows it.
     */
    public static final int MAX_ANSWER_RECORD_BYTES = 16 * 1024 * 1024;

    public KafkaConfig(String bootstrapServers) {
        this(bootstrapServers, DEFAULT_MAX_POLL_INTERVAL_MS);
    }

    public KafkaConfig(String bootstrapServers, int maxPollIntervalMs) {
        this(bootstrapServers, maxPollIntervalMs, KafkaSecurity.PLAINTEXT);
    }

    public KafkaConfig {
        if (maxPollIntervalMs < 1_000) {
            throw new IllegalArgumentException("KAFKA_MAX_POLL_INTERVAL_MS must be at least 1000, was "
                    + maxPollIntervalMs);
        }
    }

    public static KafkaConfig fromEnv(Map<String, String> env) {
        Settings settings = Settings.of(env);
        return new KafkaConfig(settings.text(Env.KAFKA_BOOTSTRAP_SERVERS, DEFAULT_BOOTSTRAP),
                settings.integer(Env.KAFKA_MAX_POLL_INTERVAL_MS, DEFAULT_MAX_POLL_INTERVAL_MS, 1_000,
                        Integer.MAX_VALUE), KafkaSecurity.fromEnv(settings));
    }

    /** Where the brokers are and how to authenticate: what every client needs, and all an admin client needs. */
    public Map<String, Object> common() {
        Map<String, Object> props = new HashMap<>(security.clientProperties());
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return props;
    }

    /** An admin client's settings, with a client id and a bounded wait for each call. */
    public Map<String, Object> admin(String clientId) {
        Map<String, Object> props = common();
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        props.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return props;
    }

    public Map<String, Object> producer(String clientId) {
        Map<String, Object> props = common();
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MAX_ANSWER_RECORD_BYTES);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return props;
    }

    public Map<String, Object> consumer(String groupId, String clientId) {
        Map<String, Object> props = common();
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // A member that died without leaving holds its partitions until the session times out: keep that short.
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 2_000);
        props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, maxPollIntervalMs);
        return props;
    }
}
