package dev.onejob.core.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Where Kafka is ({@code KAFKA_BOOTSTRAP_SERVERS}, default {@code localhost:9092}) and the client settings every
 * service shares: idempotent producers that wait for all replicas, consumers that commit by hand and read only
 * committed records.
 */
public record KafkaConfig(String bootstrapServers) {
    public static final String DEFAULT_BOOTSTRAP = "localhost:9092";
    /** Job requests may carry large variables; this bounds records on job-requests and its dead letters. */
    public static final int MAX_REQUEST_RECORD_BYTES = 4 * 1024 * 1024;

    public static KafkaConfig fromEnv(Map<String, String> env) {
        String servers = env.getOrDefault("KAFKA_BOOTSTRAP_SERVERS", DEFAULT_BOOTSTRAP).trim();
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("KAFKA_BOOTSTRAP_SERVERS is empty; give host:port[,host:port...]");
        }
        return new KafkaConfig(servers);
    }

    public Map<String, Object> producer(String clientId) {
        Map<String, Object> props = new HashMap<>();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MAX_REQUEST_RECORD_BYTES + 64 * 1024);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return props;
    }

    public Map<String, Object> consumer(String groupId, String clientId) {
        Map<String, Object> props = new HashMap<>();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // A member that died without leaving holds its partitions until the session times out: keep that short.
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 2_000);
        return props;
    }
}
