package dev.onejob.launcher.cli;

import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.db.DatabaseException;
import java.sql.SQLException;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The ledger for the commands that read it directly ({@code jobs list}, {@code outbox status}, the certification
 * column of {@code providers list}). Consumes {@code DATABASE_URL}, {@code DATABASE_USER} and
 * {@code DATABASE_PASSWORD} ({@link DatabaseConfig#fromEnv}); produces the result of one read. Every transaction
 * is opened READ ONLY by the driver, so these commands cannot change the ledger even by mistake. Owns no pool:
 * each read opens one connection.
 */
record ReadOnlyDatabase(DatabaseConfig config, Database database) {
    private static final int CONNECT_TIMEOUT_SECONDS = 5;
    private static final int QUERY_TIMEOUT_SECONDS = 30;

    static ReadOnlyDatabase fromEnv(CliContext context) {
        DatabaseConfig config;
        try {
            config = DatabaseConfig.fromEnv(context.runningEnv());
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage(e.getMessage());
        }
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setURL(config.jdbcUrl());
        source.setUser(config.user());
        source.setPassword(config.password());
        source.setReadOnly(true);
        source.setConnectTimeout(CONNECT_TIMEOUT_SECONDS);
        source.setSocketTimeout(QUERY_TIMEOUT_SECONDS);
        source.setApplicationName("onejob-cli");
        return new ReadOnlyDatabase(config, Database.wrap(source));
    }

    /** The pool-less database, for stores that take one; failures of their reads go through {@link #failure}. */
    public Database database() {
        return database;
    }

    <T> T read(Database.TransactionBody<T> body) {
        try {
            return database.inTransaction(body);
        } catch (DatabaseException e) {
            throw failure(e);
        }
    }

    /** What a failed read means for the operator, with the exit status that says it. */
    CliFailure failure(RuntimeException e) {
        SQLException sql = e.getCause() instanceof SQLException cause ? cause : null;
        String state = sql == null || sql.getSQLState() == null ? "" : sql.getSQLState();
        String message = sql == null ? e.getMessage() : sql.getMessage();
        String where = config.databaseName() + " at " + config.jdbcUrl().replaceAll("\\?.*", "") + " as "
                + config.user();
        if (state.startsWith("28") || state.equals("3D000")) {
            return CliFailure.usage("cannot use the database " + where + " (" + message
                    + "): set DATABASE_URL, DATABASE_USER, DATABASE_PASSWORD");
        }
        if (state.equals("42P01")) {
            return CliFailure.usage("the database " + where + " has no onejob ledger (" + message
                    + "): is DATABASE_URL the stack's database, and has it started once (migrations)?");
        }
        return CliFailure.unreachable("cannot read the database " + where + ": " + message);
    }
}
