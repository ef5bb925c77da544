package dev.onejob.ingest;

import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.KafkaConfig;
import java.nio.file.Path;
import java.util.Map;

/**
 * The ingest service's configuration, from the environment, with defaults that work on a fresh machine. A bad
 * value fails startup with a message naming the variable.
 */
public record IngestConfig(DatabaseConfig database, KafkaConfig kafka, String httpHost, int httpPort, int maxBodyBytes,
                           int httpThreads, Path tokensFile, Path providersFile, Path contractsDir, boolean relay,
                           String instanceId, int submissionsPerOwnerPerSecond) {

    public static IngestConfig fromEnv(Map<String, String> env) {
        return new IngestConfig(DatabaseConfig.fromEnv(env), KafkaConfig.fromEnv(env),
                env.getOrDefault("HTTP_HOST", "0.0.0.0"),
                intValue(env, "HTTP_PORT", 8080, 0, 65535),
                intValue(env, "HTTP_MAX_BODY_BYTES", 256 * 1024, 1, 64 * 1024 * 1024),
                intValue(env, "HTTP_THREADS", 32, 1, 1024),
                Path.of(env.getOrDefault("TOKENS_FILE", "config/tokens.yaml")),
                Path.of(env.getOrDefault("PROVIDERS_FILE", "config/providers.yaml")),
                Path.of(env.getOrDefault("CONTRACTS_DIR", "config/contracts")),
                !"false".equalsIgnoreCase(env.getOrDefault("OUTBOX_RELAY", "true")),
                env.getOrDefault("INSTANCE_ID", dev.onejob.core.config.InstanceIds.defaultFor("ingest")),
                intValue(env, "RATE_LIMIT_PER_OWNER", 0, 0, 1_000_000));
    }

    static int intValue(Map<String, String> env, String name, int fallback, int min, int max) {
        String raw = env.get(name);
        if (raw == null || raw.isBlank()) {
            return fallback;
        }
        try {
            int value = Integer.parseInt(raw.trim());
            if (value < min || value > max) {
                throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", got " + value);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, got '" + raw + "'");
        }
    }
}
