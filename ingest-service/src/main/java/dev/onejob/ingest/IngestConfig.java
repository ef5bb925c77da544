package dev.onejob.ingest;

import dev.onejob.core.config.Env;
import dev.onejob.core.config.InstanceIds;
import dev.onejob.core.config.Settings;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.service.ServiceConfig;
import java.nio.file.Path;
import java.util.Map;

/**
 * The ingest service's configuration, from the environment, with defaults that work on a fresh machine
 * (docs/configuration.md). A bad value fails startup with a message naming the variable and its range.
 */
public record IngestConfig(DatabaseConfig database, KafkaConfig kafka, String httpHost, int httpPort, int maxBodyBytes,
                           int httpThreads, Path tokensFile, Path providersFile, Path contractsDir, boolean relay,
                           String instanceId, int submissionsPerOwnerPerSecond) implements ServiceConfig {

    public static IngestConfig fromEnv(Map<String, String> env) {
        Settings settings = Settings.of(env);
        return new IngestConfig(DatabaseConfig.fromEnv(env), KafkaConfig.fromEnv(env),
                settings.text(Env.HTTP_HOST, "0.0.0.0"),
                settings.integer(Env.HTTP_PORT, 8080, 0, 65535),
                settings.integer(Env.HTTP_MAX_BODY_BYTES, 256 * 1024, 1, 64 * 1024 * 1024),
                settings.integer(Env.HTTP_THREADS, 32, 1, 1024),
                settings.path(Env.TOKENS_FILE, "config/tokens.yaml"),
                settings.path(Env.PROVIDERS_FILE, "config/providers.yaml"),
                settings.path(Env.CONTRACTS_DIR, "config/contracts"),
                settings.flag(Env.OUTBOX_RELAY, true),
                settings.text(Env.INSTANCE_ID, InstanceIds.defaultFor("ingest")),
                settings.integer(Env.RATE_LIMIT_PER_OWNER, 0, 0, 1_000_000));
    }
}
