package dev.onejob.worker;

import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.KafkaConfig;
import java.nio.file.Path;
import java.util.Map;

/**
 * The worker's configuration from the environment, with defaults that work on a fresh machine.
 * {@code METRICS_PORT} (default 9101, 0 = any free port, -1 = off) serves /metrics and /health.
 */
public record WorkerConfig(DatabaseConfig database, KafkaConfig kafka, Path providersFile, Path contractsDir,
                           int maxInFlight, String instanceId, int metricsPort) {

    public static WorkerConfig fromEnv(Map<String, String> env) {
        String maxInFlight = env.getOrDefault("WORKER_MAX_IN_FLIGHT", "256");
        int max;
        try {
            max = Integer.parseInt(maxInFlight.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("WORKER_MAX_IN_FLIGHT must be a whole number, got '" + maxInFlight + "'");
        }
        if (max < 1) {
            throw new IllegalArgumentException("WORKER_MAX_IN_FLIGHT must be at least 1, got " + max);
        }
        return new WorkerConfig(DatabaseConfig.fromEnv(env), KafkaConfig.fromEnv(env),
                Path.of(env.getOrDefault("PROVIDERS_FILE", "config/providers.yaml")),
                Path.of(env.getOrDefault("CONTRACTS_DIR", "config/contracts")), max,
                env.getOrDefault("INSTANCE_ID", dev.onejob.core.config.InstanceIds.defaultFor("worker")),
                Integer.parseInt(env.getOrDefault("METRICS_PORT", "9101")));
    }
}
