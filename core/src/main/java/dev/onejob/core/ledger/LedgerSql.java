package dev.onejob.core.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Bind-parameter helpers for the ledger's statements: one place that turns arguments into JDBC calls. */
final class LedgerSql {
    @FunctionalInterface
    interface RowMapper<T> {
        T map(ResultSet row) throws SQLException;
    }

    private LedgerSql() {
    }

    static <T> Optional<T> queryOne(Connection connection, String sql, RowMapper<T> mapper, Object... args)
            throws SQLException {
        List<T> rows = queryList(connection, sql, mapper, args);
        if (rows.size() > 1) {
            throw new IllegalStateException("expected at most one row, got " + rows.size() + " for: " + sql);
        }
        return rows.stream().findFirst();
    }

    static <T> List<T> queryList(Connection connection, String sql, RowMapper<T> mapper, Object... args)
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

    static int update(Connection connection, String sql, Object... args) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, args)) {
            return statement.executeUpdate();
        }
    }

    /** An update whose row count is an invariant: anything but one row means the ledger's rules were broken. */
    static void updateExactlyOne(Connection connection, String sql, String invariant, Object... args)
            throws SQLException {
        int rows = update(connection, sql, args);
        if (rows != 1) {
            throw new IllegalStateException(invariant + " (" + rows + " rows changed)");
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
