package dev.onejob.infra;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A PostgreSQL server the local tools create and drop databases on (the harnesses take it from
 * {@code DATABASE_URL}, default 127.0.0.1:5432, as {@code DATABASE_USER}, default {@code postgres}): its
 * {@code jdbc:postgresql://host:port} without a database, the user and the password (null for none). Every
 * statement runs on a short-lived connection to its {@code postgres} database, so a server restart in between
 * costs nothing. Database names reach SQL as quoted identifiers.
 */
public record PostgresServer(String serverUrl, String user, String password) {
    public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/postgres";
    private static final String SCHEME = "jdbc:postgresql://";

    /** The server of a JDBC URL ({@code jdbc:postgresql://host:port/anything}). */
    public static PostgresServer at(String jdbcUrl, String user, String password) {
        if (!jdbcUrl.startsWith(SCHEME)) {
            throw new IllegalArgumentException("expected a jdbc:postgresql://host:port/... URL, got " + jdbcUrl);
        }
        return new PostgresServer(serverOf(jdbcUrl), user, password);
    }

    /**
     * The server of this process's environment: {@code DATABASE_URL} (a {@code jdbc:postgresql://host:port/...}
     * URL, default {@value #DEFAULT_URL}) as {@code DATABASE_USER} (default {@code postgres}) with
     * {@code DATABASE_PASSWORD}, as the tests and the local-infra checks find it.
     */
    public static PostgresServer fromEnvironment() {
        Map<String, String> env = System.getenv();
        String url = env.getOrDefault("DATABASE_URL", DEFAULT_URL);
        if (!url.startsWith(SCHEME)) {
            throw new IllegalStateException("DATABASE_URL must be jdbc:postgresql://host:port/db here, got " + url);
        }
        return at(url, env.getOrDefault("DATABASE_USER", "postgres"), env.get("DATABASE_PASSWORD"));
    }

    private static String serverOf(String jdbcUrl) {
        int slash = jdbcUrl.indexOf('/', SCHEME.length());
        return slash < 0 ? jdbcUrl : jdbcUrl.substring(0, slash);
    }

    public String jdbcUrl(String database) {
        return serverUrl + "/" + database;
    }

    /** Host and port, for tools such as pgbench. */
    public String[] hostAndPort() {
        String hostPort = serverUrl.substring(SCHEME.length());
        int colon = hostPort.lastIndexOf(':');
        return colon < 0 ? new String[] {hostPort, "5432"}
                : new String[] {hostPort.substring(0, colon), hostPort.substring(colon + 1)};
    }

    public void create(String database) {
        admin("CREATE DATABASE " + quoted(database));
    }

    /** Creates the database unless it exists; true when it was created. */
    public boolean createIfMissing(String database) {
        if (exists(database)) {
            return false;
        }
        try {
            create(database);
            return true;
        } catch (IllegalStateException e) {
            if (exists(database)) {
                return false; // created by someone else in between
            }
            throw e;
        }
    }

    /** Drops the database, ending any sessions still on it. */
    public void drop(String database) {
        admin("DROP DATABASE IF EXISTS " + quoted(database) + " WITH (FORCE)");
    }

    public boolean exists(String database) {
        return databases(database).contains(database);
    }

    /** The databases whose names start with {@code prefix}. */
    public List<String> databases(String prefix) {
        List<String> names = new ArrayList<>();
        try (Connection admin = DriverManager.getConnection(jdbcUrl("postgres"), user, password);
             var statement = admin.prepareStatement("SELECT datname FROM pg_database WHERE starts_with(datname, ?)")) {
            statement.setString(1, prefix);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
        } catch (SQLException e) {
            throw unreachable(e);
        }
        return names;
    }

    private void admin(String sql) {
        try (Connection admin = DriverManager.getConnection(jdbcUrl("postgres"), user, password);
             Statement statement = admin.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw unreachable(e);
        }
    }

    private IllegalStateException unreachable(SQLException e) {
        return new IllegalStateException("PostgreSQL at " + serverUrl + " as " + user + " refused or did not answer ("
                + e.getMessage() + "); start it, or set DATABASE_URL", e);
    }

    private static String quoted(String database) {
        return "\"" + database.replace("\"", "\"\"") + "\"";
    }

    /** Without the password, so a server can be logged. */
    @Override
    public String toString() {
        return "PostgresServer[" + serverUrl + " as " + user + "]";
    }
}
