package dev.onejob.stack;

import dev.onejob.core.config.Env;
import dev.onejob.infra.PostgresServer;
import dev.onejob.infra.RunFiles;
import java.util.HashMap;
import java.util.Map;

/**
 * The environment of one service process a harness starts: its database, its broker, the run's files, the
 * simulators' addresses and API keys, its own instance id, /metrics off and the HTTP API on loopback. The services'
 * variable names are core's {@link Env}; the names the run's providers file and the simulators read are here.
 */
public final class ServiceEnv {
    /** Variables the run's providers file refers to. */
    public static final String SIM_PRIMARY_URL = "SIM_PRIMARY_URL";
    public static final String SIM_BACKUP_URL = "SIM_BACKUP_URL";
    public static final String PRIMARY_API_KEY = "PRIMARY_API_KEY";
    public static final String BACKUP_API_KEY = "BACKUP_API_KEY";
    /** Variables a provider simulator process reads. */
    public static final String SIM_PORT = "SIM_PORT";
    public static final String SIM_NAME = "SIM_NAME";
    public static final String SIM_API_KEY = "SIM_API_KEY";

    private ServiceEnv() {
    }

    /** What in-process helpers (certification) need to resolve and call the run's providers. */
    public static Map<String, String> providers(String primaryUrl, String backupUrl, String apiKey) {
        return Map.of(SIM_PRIMARY_URL, primaryUrl, SIM_BACKUP_URL, backupUrl, PRIMARY_API_KEY, apiKey,
                BACKUP_API_KEY, apiKey);
    }

    /**
     * The providers' variables a service of {@code role} is given: the API keys only for a worker, which alone calls
     * providers (certification's golden calls too); the others get the addresses their providers file names.
     */
    public static Map<String, String> forRole(Role role, Map<String, String> providers) {
        if (role == Role.WORKER) {
            return providers;
        }
        Map<String, String> env = new HashMap<>(providers);
        env.remove(PRIMARY_API_KEY);
        env.remove(BACKUP_API_KEY);
        return env;
    }

    /** A provider simulator named {@code name} on {@code port} (0: a free one) expecting {@code apiKey}. */
    public static Map<String, String> simulator(String name, int port, String apiKey) {
        Map<String, String> env = new HashMap<>();
        env.put(SIM_PORT, Integer.toString(port));
        env.put(SIM_NAME, name);
        env.put(SIM_API_KEY, apiKey);
        return env;
    }

    /** The full environment for a service instance named {@code instanceId}. */
    public static Map<String, String> of(PostgresServer server, String database, String bootstrapServers,
                                         RunFiles files, Map<String, String> providers, String instanceId) {
        Map<String, String> env = new HashMap<>(providers);
        env.put(Env.DATABASE_URL, server.jdbcUrl(database));
        env.put(Env.DATABASE_USER, server.user());
        if (server.password() != null) {
            env.put(Env.DATABASE_PASSWORD, server.password());
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
