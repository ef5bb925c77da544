package dev.onejob.core.ledger;

import dev.onejob.core.db.Statements;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** The ledger's statement helpers over {@link Statements}: at most one row, exactly one row changed. */
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
        return Statements.queryList(connection, sql, mapper::map, args);
    }

    static int update(Connection connection, String sql, Object... args) throws SQLException {
        return Statements.update(connection, sql, args);
    }

    /** An update whose row count is an invariant: anything but one row means the ledger's rules were broken. */
    static void updateExactlyOne(Connection connection, String sql, String invariant, Object... args)
            throws SQLException {
        int rows = update(connection, sql, args);
        if (rows != 1) {
            throw new IllegalStateException(invariant + " (" + rows + " rows changed)");
        }
    }
}
