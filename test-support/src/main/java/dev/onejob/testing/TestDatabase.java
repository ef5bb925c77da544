package dev.onejob.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onejob.infra.PostgresServer;
import dev.onejob.infra.ScratchDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fresh PostgreSQL database for this test run, a {@link ScratchDatabase} (created, migrated with the schema
 * module's Flyway migrations) behind a connection pool, and dropped when the JVM exits. The server is
 * {@link PostgresServer#fromEnvironment()}'s: {@code DATABASE_URL}'s (a {@code jdbc:postgresql://host:port/...} URL)
 * or 127.0.0.1:5432; the user is {@code DATABASE_USER} or {@code postgres}.
 */
public final class TestDatabase {
    private static final Logger log = LoggerFactory.getLogger(TestDatabase.class);
    private static final String PREFIX = "onejob_test_";
    /** Databases of earlier runs that died without dropping theirs are removed once they are this old. */
    private static final long STALE_AFTER_SECONDS = 6 * 3600;
    private static TestDatabase shared;

    private final ScratchDatabase database;
    private final HikariDataSource dataSource;

    private TestDatabase(ScratchDatabase database, HikariDataSource dataSource) {
        this.database = database;
        this.dataSource = dataSource;
    }

    /** The run's database, created and migrated on first use. */
    public static synchronized TestDatabase shared() {
        if (shared == null) {
            shared = create();
            Runtime.getRuntime().addShutdownHook(new Thread(shared::drop, "drop-test-database"));
        }
        return shared;
    }

    /**
     * A database of one test's own, created and migrated now and dropped by {@link #close}: for a test that fills a
     * ledger (a million jobs, say) no other test may see.
     */
    public static TestDatabase createPrivate() {
        return create();
    }

    /** Drops a database from {@link #createPrivate}; the shared one is dropped when the JVM exits. */
    public void close() {
        if (this == shared) {
            throw new IllegalStateException("the shared test database is dropped at exit, not closed by a test");
        }
        drop();
    }

    public DataSource dataSource() {
        return dataSource;
    }

    public String jdbcUrl() {
        return database.jdbcUrl();
    }

    public String user() {
        return database.user();
    }

    public String name() {
        return database.name();
    }

    /** Empties every ledger table (between tests that count rows), keeping the schema. */
    public void truncateAll() {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("TRUNCATE outbox, attempts, jobs CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot truncate the test database " + name(), e);
        }
    }

    private static TestDatabase create() {
        PostgresServer server = PostgresServer.fromEnvironment();
        String name = PREFIX + (System.currentTimeMillis() / 1000) + "_" + ProcessHandle.current().pid() + "_"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 16));
        dropStale(server);
        ScratchDatabase database = ScratchDatabase.create(server, name, false);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl());
        config.setUsername(database.user());
        config.setPassword(database.password());
        // Grows to 72 only while a test races 64 threads; idle, it holds 2, so test JVMs and the services they start
        // stay well inside the server's 100 connections.
        config.setMaximumPoolSize(72);
        config.setMinimumIdle(2);
        config.setIdleTimeout(10_000);
        config.setPoolName("test-" + name);
        log.info("test database {} created and migrated at {}", name, server.serverUrl());
        return new TestDatabase(database, new HikariDataSource(config));
    }

    /** Databases of earlier runs that died without dropping theirs. */
    private static void dropStale(PostgresServer server) {
        long now = System.currentTimeMillis() / 1000;
        for (String db : server.databases(PREFIX)) {
            String[] parts = db.substring(PREFIX.length()).split("_");
            try {
                if (now - Long.parseLong(parts[0]) > STALE_AFTER_SECONDS) {
                    server.drop(db);
                }
            } catch (NumberFormatException ignored) {
                // Not one of ours.
            }
        }
    }

    private void drop() {
        dataSource.close();
        database.close();
    }
}
