package dev.onejob.core.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one statement on the caller's connection with its arguments bound in order: the one place that turns
 * arguments into JDBC calls for the stores (the ledger's and the certifications'). Opens no transaction.
 */
public final class Statements {
    /** Reads one row into a value. */
    @FunctionalInterface
    public interface RowMapper<T> {
        T map(ResultSet row) throws SQLException;
    }

    private Statements() {
    }

    /** Every row the query answers, each mapped, in the order they came. */
    public static <T> List<T> queryList(Connection connection, String sql, RowMapper<T> mapper, Object... args)
            throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, args);
             ResultSet rows = statement.executeQuery()) {
            List<T> result = new ArrayList<>();
            while (rows.next()) {
                result.add(mapper.map(rows));
            }
            return result;
        }
    }

    /** The row count of an INSERT, UPDATE or DELETE. */
    public static int update(Connection connection, String sql, Object... args) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, args)) {
            return statement.executeUpdate();
        }
    }

    private static PreparedStatement prepare(Connection connection, String sql, Object... args) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            for (int i = 0; i < args.length; i++) {
                statement.setObject(i + 1, args[i]);
            }
            return statement;
        } catch (SQLException e) {
            statement.close();
            throw e;
        }
    }
}
