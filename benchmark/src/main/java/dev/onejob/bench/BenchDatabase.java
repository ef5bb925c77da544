package dev.onejob.bench;

import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The run's own PostgreSQL database, {@code onejob_bench_<time>_<pid>}, on the server of {@code DATABASE_URL}
 * (default {@code jdbc:postgresql://127.0.0.1:5432/postgres}, user {@code DATABASE_USER} or {@code postgres}):
 * created and migrated at the start, dropped at the end. Also answers the benchmark's own queries.
 */
final class BenchDatabase implements AutoCloseable {
    private final String serverUrl;
    private final String user;
    private final String password;
    private final String name;
    private final Database database;

    private BenchDatabase(String serverUrl, String user, String password, String name) {
        this.serverUrl = serverUrl;
        this.user = user;
        this.password = password;
        this.name = name;
        this.database = Database.connect(new DatabaseConfig(jdbcUrl(), user, password, 4), "bench");
    }

    /**
     * Creates the database, waiting up to a minute while the server answers "too many clients" (its connections are
     * shared with whatever else runs on this machine).
     */
    static BenchDatabase create(Map<String, String> env) {
        for (int attempt = 1; ; attempt++) {
            try {
                return createOnce(env);
            } catch (RuntimeException e) {
                if (attempt == 12 || !String.valueOf(causes(e)).contains("too many clients")) {
                    throw e;
                }
                try {
                    Thread.sleep(5_000);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private static String causes(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            text.append(t.getMessage()).append(' ');
        }
        return text.toString();
    }

    private static BenchDatabase createOnce(Map<String, String> env) {
        String url = env.getOrDefault("DATABASE_URL", "jdbc:postgresql://127.0.0.1:5432/postgres");
        DatabaseConfig given = DatabaseConfig.fromEnv(Map.of("DATABASE_URL", url,
                "DATABASE_USER", env.getOrDefault("DATABASE_USER", "postgres")));
        String jdbc = given.jdbcUrl();
        int slash = jdbc.indexOf('/', "jdbc:postgresql://".length());
        String server = slash < 0 ? jdbc : jdbc.substring(0, slash);
        String name = "onejob_bench_" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss"))
                + "_" + ProcessHandle.current().pid();
        String password = env.get("DATABASE_PASSWORD");
        try (Connection admin = DriverManager.getConnection(server + "/postgres", given.user(), password);
             Statement statement = admin.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL is not reachable at " + server + " as " + given.user()
                    + " (start it, or set DATABASE_URL): " + e.getMessage(), e);
        }
        BenchDatabase created = new BenchDatabase(server, given.user(), password, name);
        try {
            Database.migrate(created.database.dataSource());
        } catch (RuntimeException e) {
            created.close();
            throw e;
        }
        return created;
    }

    String name() {
        return name;
    }

    String user() {
        return user;
    }

    String password() {
        return password;
    }

    String jdbcUrl() {
        return serverUrl + "/" + name;
    }

    /** host and port of the server, for pgbench. */
    String[] hostAndPort() {
        String hostPort = serverUrl.substring("jdbc:postgresql://".length());
        int colon = hostPort.lastIndexOf(':');
        return colon < 0 ? new String[] {hostPort, "5432"} : new String[] {hostPort.substring(0, colon),
                hostPort.substring(colon + 1)};
    }

    void execute(String sql) {
        try (Connection connection = database.dataSource().getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("benchmark SQL failed: " + sql + ": " + e.getMessage(), e);
        }
    }

    long count(String sql, Object... params) {
        List<List<String>> rows = query(sql, params);
        return rows.isEmpty() || rows.get(0).get(0) == null ? 0 : Long.parseLong(rows.get(0).get(0));
    }

    String text(String sql) {
        List<List<String>> rows = query(sql);
        return rows.isEmpty() ? null : rows.get(0).get(0);
    }

    List<List<String>> query(String sql, Object... params) {
        try (Connection connection = database.dataSource().getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
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
        } catch (SQLException e) {
            throw new IllegalStateException("benchmark query failed: " + sql + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        database.close();
        try (Connection admin = DriverManager.getConnection(serverUrl + "/postgres", user, password);
             Statement statement = admin.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            System.err.println("could not drop the benchmark database " + name + ": " + e.getMessage());
        }
    }
}
