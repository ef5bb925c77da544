package dev.onejob.reconciler;

import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.KafkaConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The reconciler's configuration from the environment, with defaults that work on a fresh machine.
 * {@code METRICS_PORT} (default 9102, 0 = any free port, -1 = off) serves /metrics and /health;
 * {@code CERTIFY_INTERVAL} (off by default) re-certifies every (provider, contract) pair on a schedule;
 * {@code CERTIFICATION_MAX_AGE} (default 168h) is how old a passing certification may be for failover.
 */
public record ReconcilerConfig(DatabaseConfig database, KafkaConfig kafka, String applicationId, Path stateDir,
                               Path providersFile, Path contractsDir, Duration sweepInterval, int streamThreads,
                               int metricsPort, Duration certifyInterval, Duration certificationMaxAge) {
    public static final String APPLICATION_ID = "result-reconciler";

    public static ReconcilerConfig fromEnv(Map<String, String> env) {
        String sweep = env.getOrDefault("SWEEP_INTERVAL", "1s");
        Duration sweepInterval = dev.onejob.core.config.ConfigFiles.parseDuration(sweep).orElseThrow(() ->
                new IllegalArgumentException("SWEEP_INTERVAL must be a duration like 500ms or 1s, got '" + sweep + "'"));
        return new ReconcilerConfig(DatabaseConfig.fromEnv(env), KafkaConfig.fromEnv(env), APPLICATION_ID,
                Path.of(env.getOrDefault("STREAMS_STATE_DIR",
                        System.getProperty("java.io.tmpdir") + "/onejob-streams-" + ProcessHandle.current().pid())),
                Path.of(env.getOrDefault("PROVIDERS_FILE", "config/providers.yaml")),
                Path.of(env.getOrDefault("CONTRACTS_DIR", "config/contracts")), sweepInterval,
                Integer.parseInt(env.getOrDefault("STREAM_THREADS", "1")),
                Integer.parseInt(env.getOrDefault("METRICS_PORT", "9102")),
                optionalDuration(env, "CERTIFY_INTERVAL"),
                duration(env, "CERTIFICATION_MAX_AGE", "168h"));
    }

    private static Duration duration(Map<String, String> env, String name, String fallback) {
        String value = env.getOrDefault(name, fallback);
        return dev.onejob.core.config.ConfigFiles.parseDuration(value).orElseThrow(() ->
                new IllegalArgumentException(name + " must be a duration like 30m, 6h or 168h, got '" + value + "'"));
    }

    /** Null (off) unless set. */
    private static Duration optionalDuration(Map<String, String> env, String name) {
        String value = env.get(name);
        return value == null || value.isBlank() || value.equals("off") ? null : duration(env, name, value);
    }
}
