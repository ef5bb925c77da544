package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.Env;
import dev.onejob.infra.PostgresServer;
import dev.onejob.infra.RunFiles;
import dev.onejob.infra.ServiceEnv;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The local-infra kit sits below core and so spells the services' variable names itself: every variable it sets
 * for a service must be one the services read ({@link Env}) or one the run's providers file refers to.
 */
class ServiceEnvNamesTest {

    @Test
    void everyVariableTheKitSetsIsOneTheServicesRead() throws Exception {
        Set<String> known = new HashSet<>();
        for (Field field : Env.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                known.add((String) field.get(null));
            }
        }
        Path dir = Files.createTempDirectory("service-env");
        RunFiles files = RunFiles.write(dir, Path.of(".."), "t", List.of("a"), "ops",
                new RunFiles.Timeouts(Duration.ofSeconds(1), Duration.ofSeconds(2)),
                new RunFiles.Timeouts(Duration.ofSeconds(1), Duration.ofSeconds(2)), false);
        Map<String, String> providers = ServiceEnv.providers("http://127.0.0.1:1", "http://127.0.0.1:2", "k");
        Map<String, String> env = ServiceEnv.of(PostgresServer.at("jdbc:postgresql://127.0.0.1:5432/postgres",
                "postgres", "secret"), "scratch", "localhost:9092", files, providers, "x");

        Set<String> unknown = new HashSet<>(env.keySet());
        unknown.removeAll(known);
        unknown.removeAll(providers.keySet());
        assertEquals(Set.of(), unknown, "variables the kit sets that no service reads");
        String providersFile = Files.readString(files.providersFile());
        providers.keySet().forEach(name -> assertTrue(providersFile.contains(name), name + " is used by " + providersFile));
    }
}
