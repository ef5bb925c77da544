package dev.onejob.chaos;

import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import java.util.List;

/**
 * How the run's own clients reach Kafka: the checker and the drain as {@code admin} (every topic and group), the
 * load generator as the upstream producer, on the request topic it may write, and the topics where its requests are
 * answered. On one broker every client is anonymous and writes the shared {@code job-requests}; on the authenticated
 * cluster the upstream is its own principal with its own topics.
 */
public record KafkaAccess(KafkaConfig admin, KafkaConfig upstream, String requestTopic, List<String> outcomeTopics) {
    /** One PLAINTEXT broker nobody else writes to. */
    public static KafkaAccess plaintext(String bootstrapServers) {
        KafkaConfig config = new KafkaConfig(bootstrapServers);
        return new KafkaAccess(config, config, Topics.JOB_REQUESTS.name(),
                List.of(Topics.JOB_REQUEST_OUTCOMES.name()));
    }
}
