package dev.onejob.core.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The connection pool and the transaction boundary. Every store runs its statements through
 * {@link #inTransaction}: one connection, auto-commit off, commit on return, rollback on any exception; a
 * deadlock or serialization failure is retried from the start, since every store operation is written to be
 * replayed.
 */
public final class Database implements AutoCloseable {
    /** The actions to run after the commit of the transaction this thread is in; null outside one. */
    private static final ThreadLocal<List<Runnable>> AFTER_COMMIT = new ThreadLocal<>();
    private static final int MAX_TRIES = 5;

    private final DataSource dataSource;
    private final boolean ownsPool;

    private Database(DataSource dataSource, boolean ownsPool) {
        this.dataSource = dataSource;
        this.ownsPool = ownsPool;
    }

    /** A HikariCP pool for the given database; the caller closes it. */
    public static Database connect(DatabaseConfig config, String poolName) {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(config.jdbcUrl());
        hikari.setUsername(config.user());
        hikari.setPassword(config.password());
        hikari.setMaximumPoolSize(config.poolSize());
        // Connections are opened as load needs them, not all at start: several services share one server.
        hikari.setMinimumIdle(Math.min(2, config.poolSize()));
        hikari.setPoolName(poolName);
        hikari.setAutoCommit(true);
        hikari.setConnectionTimeout(10_000);
        hikari.setInitializationFailTimeout(-1);
        DatabaseConfig.Timeouts timeouts = config.timeouts();
        // The driver's own bounds (seconds), then the server's per session: no wait on a vanished server is unbounded.
        // Strings: the driver reads its properties with getProperty, which does not see other types.
        hikari.addDataSourceProperty("connectTimeout", Long.toString(Math.max(1, timeouts.connect().toSeconds())));
        hikari.addDataSourceProperty("socketTimeout", Long.toString(Math.max(1, timeouts.socket().toSeconds())));
        hikari.addDataSourceProperty("tcpKeepAlive", "true");
        hikari.addDataSourceProperty("options", "-c statement_timeout=" + timeouts.statement().toMillis()
                + " -c lock_timeout=" + timeouts.lock().toMillis());
        return new Database(new HikariDataSource(hikari), true);
    }

    /** Wraps a data source someone else owns (test fixtures). */
    public static Database wrap(DataSource dataSource) {
        return new Database(dataSource, false);
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /** Applies the migrations shipped in the schema module ({@code classpath:db/migration}). */
    public static void migrate(DataSource dataSource) {
        // A migration may rewrite a large table: the services' statement timeout is not for it.
        Flyway.configure().dataSource(dataSource).locations("classpath:db/migration")
                .initSql("SET statement_timeout = 0").load().migrate();
    }

    @FunctionalInterface
    public interface TransactionBody<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code action} once the transaction this thread is in ({@link #inTransaction}) has committed, and never if
     * it rolls back; outside a transaction, at once. An action must be quick and must not throw: it runs on the
     * committing thread (an outbox wake-up, a signal to another thread).
     */
    public static void afterCommit(Runnable action) {
        List<Runnable> actions = AFTER_COMMIT.get();
        if (actions == null) {
            action.run();
        } else if (!actions.contains(action)) {
            actions.add(action);
        }
    }

    public <T> T inTransaction(TransactionBody<T> body) {
        // A transaction opened inside another (its own connection) runs its own actions after its own commit.
        List<Runnable> outer = AFTER_COMMIT.get();
        SQLException last = null;
        for (int attempt = 1; attempt <= MAX_TRIES; attempt++) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(false);
                List<Runnable> actions = new ArrayList<>(1);
                AFTER_COMMIT.set(actions);
                try {
                    T value;
                    try {
                        value = body.run(connection);
                        connection.commit();
                    } finally {
                        restore(outer);
                    }
                    actions.forEach(Runnable::run);
                    return value;
                } catch (SQLException | RuntimeException e) {
                    rollback(connection, e);
                    throw e;
                } finally {
                    restoreAutoCommit(connection);
                }
            } catch (SQLException e) {
                if (!isRetryable(e)) {
                    throw new DatabaseException(e);
                }
                last = e;
            }
        }
        throw new DatabaseException(last);
    }

    /**
     * Rolls back after {@code failure}; when the connection itself is gone (the server restarted, the pool evicted
     * it) the rollback fails too, and that failure is kept as suppressed so the first cause stays the one reported.
     */
    private static void rollback(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    private static void restore(List<Runnable> outer) {
        if (outer == null) {
            AFTER_COMMIT.remove();
        } else {
            AFTER_COMMIT.set(outer);
        }
    }

    /** A broken connection cannot be reset; the pool discards it on close, so there is nothing to restore. */
    private static void restoreAutoCommit(Connection connection) {
        try {
            connection.setAutoCommit(true);
        } catch (SQLException ignored) {
            // the connection is closed or broken; closing it returns nothing usable to the pool
        }
    }

    private static boolean isRetryable(SQLException e) {
        String state = e.getSQLState();
        return "40001".equals(state) || "40P01".equals(state);
    }

    @Override
    public void close() {
        if (ownsPool && dataSource instanceof HikariDataSource hikari) {
            hikari.close();
        }
    }
}
