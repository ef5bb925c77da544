package dev.onejob.worker;

import dev.onejob.core.config.Env;
import dev.onejob.core.config.InstanceIds;
import dev.onejob.core.config.Settings;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.service.ServiceConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Map;

/**
 * The worker's configuration from the environment, with defaults that work on a fresh machine
 * (docs/configuration.md). {@code METRICS_PORT} (default 9101, 0 = any free port, -1 = off) serves /metrics and
 * /health. {@code WORKER_DRAIN_TIMEOUT} (default: the longest hard timeout of the providers plus 5 s) bounds how long
 * a stopping worker lets calls in flight finish.
 */
public record WorkerConfig(DatabaseConfig database, KafkaConfig kafka, Path providersFile, Path contractsDir,
                           int maxInFlight, String instanceId, int metricsPort, Optional<Duration> drainTimeout)
        implements ServiceConfig {
    public static final int DEFAULT_METRICS_PORT = 9101;

    public static WorkerConfig fromEnv(Map<String, String> env) {
        Settings settings = Settings.of(env);
        return new WorkerConfig(DatabaseConfig.fromEnv(env), KafkaConfig.fromEnv(env),
                settings.path(Env.PROVIDERS_FILE, "config/providers.yaml"),
                settings.path(Env.CONTRACTS_DIR, "config/contracts"),
                settings.integer(Env.WORKER_MAX_IN_FLIGHT, 4096, 1, 100_000),
                settings.text(Env.INSTANCE_ID, InstanceIds.defaultFor("worker")),
                settings.integer(Env.METRICS_PORT, DEFAULT_METRICS_PORT, -1, 65535),
                settings.optionalDuration(Env.WORKER_DRAIN_TIMEOUT, Duration.ZERO, Duration.ofHours(1)));
    }
}
