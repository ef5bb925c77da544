package dev.onejob.launcher;

import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TestKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The environment of a {@code ./onejob dev} stack started inside a test JVM: the run's shared test database and
 * broker, the API and both simulators on free loopback ports, its own data directory, the given providers file (the
 * simulators' URLs filled in) and the repository's contracts. Tests add what is theirs to the map it returns.
 */
public final class DevStackEnv {
    private DevStackEnv() {
    }

    /** A fresh temp directory {@code <dirPrefix>*} holding {@code providersYaml} as {@code providers.yaml}. */
    public static Map<String, String> of(String dirPrefix, String providersYaml) throws IOException {
        Path dir = Files.createTempDirectory(dirPrefix);
        Path providers = dir.resolve("providers.yaml");
        Files.writeString(providers, providersYaml);
        TestDatabase db = TestDatabase.shared();
        Map<String, String> env = new HashMap<>();
        env.put("DATABASE_URL", db.jdbcUrl());
        env.put("DATABASE_USER", db.user());
        env.put("KAFKA_BOOTSTRAP_SERVERS", TestKafka.shared().bootstrapServers());
        env.put("ONEJOB_DATA_DIR", dir.toString());
        env.put("HTTP_HOST", "127.0.0.1");
        env.put("HTTP_PORT", "0");
        env.put("SIM_PRIMARY_PORT", "0");
        env.put("SIM_BACKUP_PORT", "0");
        env.put("PROVIDERS_FILE", providers.toString());
        env.put("ONEJOB_SIMULATORS", "true");
        env.put("CONTRACTS_DIR", Path.of("../config/contracts").toAbsolutePath().toString());
        return env;
    }
}
