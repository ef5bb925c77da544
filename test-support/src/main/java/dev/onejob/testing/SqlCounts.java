package dev.onejob.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** A test's look at the database: the one number a query answers. */
public final class SqlCounts {
    private SqlCounts() {
    }

    /** The first column of the first row {@code sql} answers with {@code args} bound in order. */
    public static long queryLong(Connection connection, String sql, Object... args) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                statement.setObject(i + 1, args[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
