package dev.onejob.infra;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A PostgreSQL server the local tools create and drop databases on (the harnesses take it from
 * {@code DATABASE_URL}, default 127.0.0.1:5432, as {@code DATABASE_USER}, default {@code postgres}). Every
 * statement runs on a short-lived connection to its {@code postgres} database, so a server restart in between
 * costs nothing. Database names reach SQL as quoted identifiers.
 */
public final class PostgresServer {
    public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/postgres";

    private final String serverUrl;
    private final String user;
    private final String password;

    public PostgresServer(String serverUrl, String user, String password) {
        this.serverUrl = serverUrl;
        this.user = user;
        this.password = password;
    }

    /** The server of a JDBC URL ({@code jdbc:postgresql://host:port/anything}). */
    public static PostgresServer at(String jdbcUrl, String user, String password) {
        if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException("expected a jdbc:postgresql://host:port/... URL, got " + jdbcUrl);
        }
        return new PostgresServer(serverOf(jdbcUrl), user, password);
    }

    private static String serverOf(String jdbcUrl) {
        int slash = jdbcUrl.indexOf('/', "jdbc:postgresql://".length());
        return slash < 0 ? jdbcUrl : jdbcUrl.substring(0, slash);
    }

    /** {@code jdbc:postgresql://host:port}, without a database. */
    public String serverUrl() {
        return serverUrl;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    public String jdbcUrl(String database) {
        return serverUrl + "/" + database;
    }

    /** Host and port, for tools such as pgbench. */
    public String[] hostAndPort() {
        String hostPort = serverUrl.substring("jdbc:postgresql://".length());
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
}
