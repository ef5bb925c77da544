package dev.onejob.infra;

import java.util.HashMap;
import java.util.Map;

/**
 * The environment of one service process a harness starts: its database, its broker, the run's files, the
 * simulators' addresses and API keys, its own instance id, /metrics off and the HTTP API on loopback. This kit sits
 * below {@code core} (the tests' fixtures use it), so it names the services' variables here;
 * {@code ServiceEnvNamesTest} in the launcher checks each against {@code dev.onejob.core.config.Env}.
 */
public final class ServiceEnv {
    static final String DATABASE_URL = "DATABASE_URL";
    static final String DATABASE_USER = "DATABASE_USER";
    static final String DATABASE_PASSWORD = "DATABASE_PASSWORD";
    static final String KAFKA_BOOTSTRAP_SERVERS = "KAFKA_BOOTSTRAP_SERVERS";
    static final String PROVIDERS_FILE = "PROVIDERS_FILE";
    static final String CONTRACTS_DIR = "CONTRACTS_DIR";
    static final String TOKENS_FILE = "TOKENS_FILE";
    static final String HTTP_HOST = "HTTP_HOST";
    static final String METRICS_PORT = "METRICS_PORT";
    static final String INSTANCE_ID = "INSTANCE_ID";

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
    public static Map<String, String> of(PostgresServer server, String database, String bootstrapServers,
                                         RunFiles files, Map<String, String> providers, String instanceId) {
        Map<String, String> env = new HashMap<>(providers);
        env.put(DATABASE_URL, server.jdbcUrl(database));
        env.put(DATABASE_USER, server.user());
        if (server.password() != null) {
            env.put(DATABASE_PASSWORD, server.password());
        }
        env.put(KAFKA_BOOTSTRAP_SERVERS, bootstrapServers);
        env.put(PROVIDERS_FILE, files.providersFile().toString());
        env.put(CONTRACTS_DIR, files.contractsDir().toString());
        env.put(TOKENS_FILE, files.tokensFile().toString());
        env.put(HTTP_HOST, "127.0.0.1");
        env.put(METRICS_PORT, "-1");
        env.put(INSTANCE_ID, instanceId);
        return env;
    }
}
