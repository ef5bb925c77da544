package dev.onejob.bench;

import dev.onejob.core.config.Env;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.infra.PostgresServer;
import dev.onejob.infra.ScratchDatabase;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The run's own PostgreSQL database, {@code onejob_bench_<time>_<pid>}, on the server of {@code DATABASE_URL}
 * (default {@code jdbc:postgresql://127.0.0.1:5432/postgres}, user {@code DATABASE_USER} or {@code postgres}):
 * a {@link ScratchDatabase}, created and migrated at the start, dropped at the end. Its queries fail the phase
 * that asks them (an unchecked error naming the SQL), since the benchmark never restarts the server.
 */
final class BenchDatabase implements AutoCloseable {
    private final ScratchDatabase database;

    private BenchDatabase(ScratchDatabase database) {
        this.database = database;
    }

    static BenchDatabase create(Map<String, String> env) {
        Map<String, String> withDefault = new HashMap<>(env);
        withDefault.putIfAbsent(Env.DATABASE_URL, PostgresServer.DEFAULT_URL);
        DatabaseConfig given = DatabaseConfig.fromEnv(withDefault);
        String name = "onejob_bench_" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss"))
                + "_" + ProcessHandle.current().pid();
        return new BenchDatabase(ScratchDatabase.create(PostgresServer.at(given.jdbcUrl(), given.user(),
                given.password()), name, false));
    }

    ScratchDatabase scratch() {
        return database;
    }

    String name() {
        return database.name();
    }

    String user() {
        return database.user();
    }

    String password() {
        return database.password();
    }

    String jdbcUrl() {
        return database.jdbcUrl();
    }

    /** host and port of the server, for pgbench. */
    String[] hostAndPort() {
        return database.server().hostAndPort();
    }

    void execute(String sql) {
        try {
            database.execute(sql);
        } catch (SQLException e) {
            throw failed(sql, e);
        }
    }

    long count(String sql, Object... params) {
        try {
            return database.count(sql, params);
        } catch (SQLException e) {
            throw failed(sql, e);
        }
    }

    String text(String sql) {
        List<List<String>> rows = query(sql);
        return rows.isEmpty() ? null : rows.get(0).get(0);
    }

    List<List<String>> query(String sql, Object... params) {
        try {
            return database.query(sql, params);
        } catch (SQLException e) {
            throw failed(sql, e);
        }
    }

    private static IllegalStateException failed(String sql, SQLException e) {
        return new IllegalStateException("benchmark SQL failed: " + sql + ": " + e.getMessage(), e);
    }

    @Override
    public void close() {
        database.close();
    }
}
