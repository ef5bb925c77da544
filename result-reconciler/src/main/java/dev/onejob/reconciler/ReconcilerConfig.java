package dev.onejob.reconciler;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Env;
import dev.onejob.core.config.InstanceIds;
import dev.onejob.core.config.Settings;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.Groups;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.outbox.OutboxPruner;
import dev.onejob.core.service.ServiceConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The reconciler's configuration from the environment, with defaults that work on a fresh machine
 * (docs/configuration.md). {@code METRICS_PORT} (default 9102, 0 = any free port, -1 = off) serves /metrics and
 * /health; {@code CERTIFY_INTERVAL} (off by default; null here) re-certifies every (provider, contract) pair on a
 * schedule; {@code CERTIFICATION_MAX_AGE} (default 168h) is how old a passing certification may be for failover;
 * {@code OUTBOX_RELAY} (default true) runs an outbox relay in this instance, so the failover commands, job results
 * and race-audit records it writes reach Kafka whether or not an ingest instance runs; {@code COMPLETION_THREADS}
 * (default 2) is how many consumers of {@code attempt-completions} this instance runs; {@code OUTBOX_RETENTION}
 * (default 7 days, 0s = for ever) is how long its relay's pruner keeps sent outbox rows.
 */
public record ReconcilerConfig(DatabaseConfig database, KafkaConfig kafka, String applicationId, Path stateDir,
                               Path providersFile, Path contractsDir, Duration sweepInterval, int completionThreads,
                               int metricsPort, Duration certifyInterval, Duration certificationMaxAge,
                               boolean relay, Duration outboxRetention, String instanceId,
                               boolean startTokensRequired) implements ServiceConfig {
    public static final String APPLICATION_ID = Groups.RECONCILER;

    /** Requiring every completion's start token. */
    public ReconcilerConfig(DatabaseConfig database, KafkaConfig kafka, String applicationId, Path stateDir,
                            Path providersFile, Path contractsDir, Duration sweepInterval, int completionThreads,
                            int metricsPort, Duration certifyInterval, Duration certificationMaxAge,
                            boolean relay, Duration outboxRetention, String instanceId) {
        this(database, kafka, applicationId, stateDir, providersFile, contractsDir, sweepInterval, completionThreads,
                metricsPort, certifyInterval, certificationMaxAge, relay, outboxRetention, instanceId, true);
    }
    public static final int DEFAULT_METRICS_PORT = 9102;

    public static ReconcilerConfig fromEnv(Map<String, String> env) {
        Settings settings = Settings.of(env);
        return new ReconcilerConfig(DatabaseConfig.fromEnv(env), KafkaConfig.fromEnv(env), APPLICATION_ID,
                settings.path(Env.STREAMS_STATE_DIR,
                        System.getProperty("java.io.tmpdir") + "/onejob-streams-" + ProcessHandle.current().pid()),
                settings.path(Env.PROVIDERS_FILE, "config/providers.yaml"),
                settings.path(Env.CONTRACTS_DIR, "config/contracts"),
                settings.duration(Env.SWEEP_INTERVAL, Duration.ofSeconds(1), Duration.ofMillis(10),
                        Duration.ofMinutes(10)),
                settings.integer(Env.COMPLETION_THREADS, 2, 1, 64),
                settings.integer(Env.METRICS_PORT, DEFAULT_METRICS_PORT, -1, 65535),
                settings.optionalDuration(Env.CERTIFY_INTERVAL, Duration.ofSeconds(1), Duration.ofDays(365))
                        .orElse(null),
                settings.duration(Env.CERTIFICATION_MAX_AGE, Duration.ofHours(168), Duration.ofMinutes(1),
                        Duration.ofDays(365)),
                settings.flag(Env.OUTBOX_RELAY, true),
                OutboxPruner.retention(settings),
                settings.text(Env.INSTANCE_ID, InstanceIds.defaultFor("reconciler")),
                startTokensRequired(settings.text(Env.START_TOKENS, "required")));
    }

    private static boolean startTokensRequired(String value) {
        return switch (value) {
            case "required" -> true;
            case "optional" -> false;
            default -> throw new ConfigException(Env.START_TOKENS
                    + " must be required or optional, not '" + value + "'");
        };
    }
}
