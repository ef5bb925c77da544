package dev.onejob.infra;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;

/**
 * A database of a run's own on a {@link PostgresServer}: created fresh under a name that says whose it is (the
 * benchmark's {@code onejob_bench_...}, the chaos run's {@code onejob_chaos_...}, a test JVM's
 * {@code onejob_test_...}), migrated with the schema module's Flyway migrations, and dropped on {@link #close()}
 * unless kept. Reads go through short-lived connections, so they ride out a server restart between two calls.
 */
public final class ScratchDatabase implements AutoCloseable {
    private final PostgresServer server;
    private final String name;
    private final boolean keep;

    private ScratchDatabase(PostgresServer server, String name, boolean keep) {
        this.server = server;
        this.name = name;
        this.keep = keep;
    }

    /**
     * Creates (replacing one of the same name left by an earlier run) and migrates {@code name}. While the server
     * answers "too many clients" (its connections are shared with whatever else runs on the machine), waits and
     * tries again for up to a minute.
     */
    public static ScratchDatabase create(PostgresServer server, String name, boolean keep) {
        for (int attempt = 1; ; attempt++) {
            try {
                server.drop(name);
                server.create(name);
                break;
            } catch (IllegalStateException e) {
                if (attempt == 12 || !causes(e).contains("too many clients")) {
                    throw e;
                }
                pause(5_000, e);
            }
        }
        ScratchDatabase created = new ScratchDatabase(server, name, keep);
        try {
            Flyway.configure().dataSource(created.jdbcUrl(), created.user(), created.password())
                    .locations("classpath:db/migration").load().migrate();
        } catch (RuntimeException e) {
            server.drop(name);
            throw e;
        }
        return created;
    }

    public String name() {
        return name;
    }

    public PostgresServer server() {
        return server;
    }

    public String jdbcUrl() {
        return server.jdbcUrl(name);
    }

    public String user() {
        return server.user();
    }

    public String password() {
        return server.password();
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), user(), password());
    }

    /** Rows of a query as text columns; throws SQLException so callers can ride out a restarting server. */
    public List<List<String>> query(String sql, Object... params) throws SQLException {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                statement.setObject(i + 1, params[i]);
            }
            List<List<String>> rows = new ArrayList<>();
            try (ResultSet result = statement.executeQuery()) {
                int columns = result.getMetaData().getColumnCount();
                while (result.next()) {
                    List<String> row = new ArrayList<>(columns);
                    for (int c = 1; c <= columns; c++) {
                        row.add(result.getString(c));
                    }
                    rows.add(row);
                }
            }
            return rows;
        }
    }

    /** The first column of the first row as a number (0 for no row or NULL). */
    public long count(String sql, Object... params) throws SQLException {
        List<List<String>> rows = query(sql, params);
        return rows.isEmpty() || rows.get(0).get(0) == null ? 0 : Long.parseLong(rows.get(0).get(0));
    }

    public void execute(String sql) throws SQLException {
        try (Connection connection = connect(); var statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** Drops the database (ending sessions left on it) unless it was created to be kept. */
    @Override
    public void close() {
        if (keep) {
            return;
        }
        try {
            server.drop(name);
        } catch (IllegalStateException e) {
            System.err.println("could not drop the database " + name + ": " + e.getMessage());
        }
    }

    private static String causes(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            text.append(t.getMessage()).append(' ');
        }
        return text.toString();
    }

    private static void pause(long millis, RuntimeException cause) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw cause;
        }
    }
}
