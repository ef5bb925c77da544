package dev.onejob.infra;

import dev.onejob.core.config.Env;
import java.util.HashMap;
import java.util.Map;

/**
 * The environment of one service process a harness starts: its database, its broker, the run's files, the
 * simulators' addresses and API keys, its own instance id, /metrics off and the HTTP API on loopback.
 */
public final class ServiceEnv {
    /** Variables the run's providers file refers to. */
    public static final String SIM_PRIMARY_URL = "SIM_PRIMARY_URL";
    public static final String SIM_BACKUP_URL = "SIM_BACKUP_URL";
    public static final String PRIMARY_API_KEY = "PRIMARY_API_KEY";
    public static final String BACKUP_API_KEY = "BACKUP_API_KEY";

    private ServiceEnv() {
    }

    /** What in-process helpers (certification) need to resolve and call the run's providers. */
    public static Map<String, String> providers(String primaryUrl, String backupUrl, String apiKey) {
        return Map.of(SIM_PRIMARY_URL, primaryUrl, SIM_BACKUP_URL, backupUrl, PRIMARY_API_KEY, apiKey,
                BACKUP_API_KEY, apiKey);
    }

    /** The full environment for a service instance named {@code instanceId}. */
    public static Map<String, String> of(ScratchDatabase database, String bootstrapServers, RunFiles files,
                                         Map<String, String> providers, String instanceId) {
        Map<String, String> env = new HashMap<>(providers);
        env.put(Env.DATABASE_URL, database.jdbcUrl());
        env.put(Env.DATABASE_USER, database.user());
        if (database.password() != null) {
            env.put(Env.DATABASE_PASSWORD, database.password());
        }
        env.put(Env.KAFKA_BOOTSTRAP_SERVERS, bootstrapServers);
        env.put(Env.PROVIDERS_FILE, files.providersFile().toString());
        env.put(Env.CONTRACTS_DIR, files.contractsDir().toString());
        env.put(Env.TOKENS_FILE, files.tokensFile().toString());
        env.put(Env.HTTP_HOST, "127.0.0.1");
        env.put(Env.METRICS_PORT, "-1");
        env.put(Env.INSTANCE_ID, instanceId);
        return env;
    }
}
