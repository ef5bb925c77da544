package dev.onejob.chaos.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PostgresTest {
    @TempDir
    Path clusters;

    @Test
    void theConfiguredCommandRunsThroughTheShell() {
        List<String> command = Postgres.restartCommand(Map.of("CHAOS_PG_RESTART", "service postgresql restart"),
                clusters);

        assertEquals(List.of("sh", "-c", "service postgresql restart"), command);
    }

    @Test
    void withoutAConfiguredCommandTheOneClusterVersionIsRestartedImmediately() throws IOException {
        Files.createDirectory(clusters.resolve("15"));
        Files.writeString(clusters.resolve("README"), "a file is not a version");

        List<String> command = Postgres.restartCommand(Map.of("CHAOS_PG_RESTART", " "), clusters);

        assertEquals(List.of("pg_ctlcluster", "--skip-systemctl-redirect", "15", "main", "restart", "-m",
                "immediate"), command);
    }

    @Test
    void twoVersionsAreAmbiguousAndTheErrorNamesTheVariable() throws IOException {
        Files.createDirectory(clusters.resolve("15"));
        Files.createDirectory(clusters.resolve("16"));

        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> Postgres.restartCommand(Map.of(), clusters));

        assertTrue(error.getMessage().contains("[15, 16]"), error.getMessage());
        assertTrue(error.getMessage().contains("CHAOS_PG_RESTART"), error.getMessage());
    }

    @Test
    void noPostgresConfigurationIsAnErrorThatNamesTheVariable() {
        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> Postgres.restartCommand(Map.of(), clusters.resolve("missing")));

        assertTrue(error.getMessage().contains("CHAOS_PG_RESTART"), error.getMessage());
    }
}
