package dev.onejob.reconciler;

import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.KafkaConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The reconciler's configuration from the environment, with defaults that work on a fresh machine.
 * {@code METRICS_PORT} (default 9102, 0 = any free port, -1 = off) serves /metrics and /health.
 */
public record ReconcilerConfig(DatabaseConfig database, KafkaConfig kafka, String applicationId, Path stateDir,
                               Path providersFile, Duration sweepInterval, int streamThreads, int metricsPort) {
    public static final String APPLICATION_ID = "result-reconciler";

    public static ReconcilerConfig fromEnv(Map<String, String> env) {
        String sweep = env.getOrDefault("SWEEP_INTERVAL", "1s");
        Duration sweepInterval = dev.onejob.core.config.ConfigFiles.parseDuration(sweep).orElseThrow(() ->
                new IllegalArgumentException("SWEEP_INTERVAL must be a duration like 500ms or 1s, got '" + sweep + "'"));
        return new ReconcilerConfig(DatabaseConfig.fromEnv(env), KafkaConfig.fromEnv(env), APPLICATION_ID,
                Path.of(env.getOrDefault("STREAMS_STATE_DIR",
                        System.getProperty("java.io.tmpdir") + "/onejob-streams-" + ProcessHandle.current().pid())),
                Path.of(env.getOrDefault("PROVIDERS_FILE", "config/providers.yaml")), sweepInterval,
                Integer.parseInt(env.getOrDefault("STREAM_THREADS", "1")),
                Integer.parseInt(env.getOrDefault("METRICS_PORT", "9102")));
    }
}
