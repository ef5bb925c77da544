package dev.onejob.chaos;

import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The run's own database on the PostgreSQL at {@code DATABASE_URL} (default the local server): created fresh
 * ({@code onejob_chaos_<seed>_<pid>}), migrated, dropped at the end unless kept. The harness reads it with short-lived
 * connections (never a pool), because it restarts the server under its own feet.
 */
final class ChaosDatabase implements AutoCloseable {
    private final String serverUrl;
    private final String user;
    private final String password;
    private final String name;

    private ChaosDatabase(String serverUrl, String user, String password, String name) {
        this.serverUrl = serverUrl;
        this.user = user;
        this.password = password;
        this.name = name;
    }

    static ChaosDatabase create(Map<String, String> env, long seed) {
        String url = env.getOrDefault("DATABASE_URL", "jdbc:postgresql://127.0.0.1:5432/postgres");
        DatabaseConfig given = DatabaseConfig.fromEnv(Map.of("DATABASE_URL", url,
                "DATABASE_USER", env.getOrDefault("DATABASE_USER", "postgres")));
        String jdbc = given.jdbcUrl();
        int slash = jdbc.indexOf('/', "jdbc:postgresql://".length());
        String server = slash < 0 ? jdbc : jdbc.substring(0, slash);
        String name = "onejob_chaos_" + Long.toUnsignedString(seed) + "_" + ProcessHandle.current().pid();
        String password = env.get("DATABASE_PASSWORD");
        try (Connection admin = DriverManager.getConnection(server + "/postgres", given.user(), password);
             Statement statement = admin.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL is not reachable at " + server + " as " + given.user()
                    + " (start it, or set DATABASE_URL): " + e.getMessage(), e);
        }
        ChaosDatabase created = new ChaosDatabase(server, given.user(), password, name);
        try (Database database = Database.connect(new DatabaseConfig(created.jdbcUrl(), created.user, password, 2),
                "chaos-migrate")) {
            Database.migrate(database.dataSource());
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

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), user, password);
    }

    /** Rows of a query as text columns; throws SQLException so callers can ride out a restarting server. */
    List<List<String>> query(String sql, Object... params) throws SQLException {
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

    long count(String sql, Object... params) throws SQLException {
        return Long.parseLong(query(sql, params).get(0).get(0));
    }

    /** Drops the database (FORCE ends the services' sessions, if any are left). */
    @Override
    public void close() {
        try (Connection admin = DriverManager.getConnection(serverUrl + "/postgres", user, password);
             Statement statement = admin.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            System.err.println("could not drop the chaos database " + name + ": " + e.getMessage());
        }
    }
}
