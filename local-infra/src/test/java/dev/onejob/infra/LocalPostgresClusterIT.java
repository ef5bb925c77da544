package dev.onejob.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL cluster of the test's own, from the machine's server binaries: a scratch database on it, a crash-like
 * restart that cuts off a connection opened before it and keeps what was committed, and nothing left after close.
 * The machine's server (127.0.0.1:5432) is not involved.
 */
class LocalPostgresClusterIT {
    private static final Path TEMP = Path.of(System.getProperty("java.io.tmpdir"));
    private static final Path LOGS = Path.of("target/local-postgres-it").toAbsolutePath();

    @Test
    void aClusterOfItsOwnRestartsImmediatelyAndIsGoneAfterClose() throws Exception {
        Path directory;
        Path log = LOGS.resolve("restart.log");
        try (LocalPostgresCluster cluster = LocalPostgresCluster.start(TEMP, log, false)) {
            directory = cluster.directory();
            assertNotEquals(5432, cluster.port());
            assertEquals("jdbc:postgresql://127.0.0.1:" + cluster.port(), cluster.server().serverUrl());
            assertEquals(LocalPostgresCluster.isRoot() ? LocalPostgresCluster.OS_USER : System.getProperty("user.name"),
                    Files.getOwner(cluster.dataDirectory()).getName(), "as root the data belongs to the postgres user");
            assertTrue(Files.exists(directory.resolve(".s.PGSQL." + cluster.port())), "its socket is in its directory");

            try (ScratchDatabase database = ScratchDatabase.create(cluster.server(), "onejob_cluster_it", false)) {
                assertEquals(0, database.count("SELECT count(*) FROM jobs"), "migrated");
                assertEquals("200", database.query("SHOW max_connections").get(0).get(0));
                assertEquals("127.0.0.1", database.query("SHOW listen_addresses").get(0).get(0));
                database.execute("CREATE TABLE committed (x int); INSERT INTO committed VALUES (7)");

                try (Connection before = database.connect()) {
                    execute(before, "SELECT 1");
                    Duration down = cluster.restartImmediate();
                    assertTrue(down.compareTo(Duration.ZERO) > 0 && down.compareTo(Duration.ofSeconds(60)) < 0,
                            "down " + down);
                    assertThrows(SQLException.class, () -> execute(before, "SELECT 1"),
                            "a connection from before the restart was cut off");
                }
                assertEquals(7, database.count("SELECT x FROM committed"), "a new connection works; WAL replayed");
            }
            assertFalse(cluster.server().exists("onejob_cluster_it"), "dropped");
        }
        assertFalse(Files.exists(directory), "the cluster's directory is deleted on close");
        assertTrue(Files.readString(log).contains("database system is ready to accept connections"),
                "the server logs to the given file");
    }

    @Test
    void aKeptClusterIsStoppedButItsDirectoryStays() throws Exception {
        Path directory = null;
        try {
            int port;
            try (LocalPostgresCluster cluster = LocalPostgresCluster.start(TEMP, LOGS.resolve("kept.log"), true)) {
                directory = cluster.directory();
                port = cluster.port();
                ScratchDatabase.create(cluster.server(), "onejob_cluster_it_kept", true).close();
                assertTrue(cluster.startCommand().contains("pg_ctl -D " + cluster.dataDirectory()),
                        cluster.startCommand());
            }
            assertTrue(Files.isRegularFile(directory.resolve("data/PG_VERSION")), "kept");
            assertFalse(Files.exists(directory.resolve("data/postmaster.pid")), "stopped");
            assertThrows(SQLException.class, () -> DriverManager.getConnection(
                    "jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=2", "postgres", null).close());
        } finally {
            if (directory != null) {
                try (Stream<Path> paths = Files.walk(directory)) {
                    for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(path);
                    }
                }
            }
        }
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
