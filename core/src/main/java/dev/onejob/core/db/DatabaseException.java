package dev.onejob.core.db;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/** A database failure no store could turn into an answer: the database is down, or an invariant broke. */
public final class DatabaseException extends RuntimeException {
    public DatabaseException(SQLException cause) {
        super(cause.getMessage() + " (SQLState " + cause.getSQLState() + ")", cause);
    }

    public String sqlState() {
        return ((SQLException) getCause()).getSQLState();
    }

    /**
     * Whether {@code failure} (or a cause) says PostgreSQL could not be reached or went away mid-statement: a
     * connection exception (SQLState class 08), the server shutting down or starting (57P01..57P03), too many
     * connections (53300), or the pool giving up waiting for a connection. Such a failure is worth a retry; the
     * transaction it ended was rolled back, or (if the connection broke during the commit) may have committed, which
     * an idempotent retry settles.
     */
    public static boolean isUnavailable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTransientConnectionException) {
                return true;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")
                        || state.equals("53300")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether PostgreSQL refused {@code failure}'s statement because of the data it carried: a data exception (SQLState
     * class 22: a value out of range, text it cannot hold), an integrity constraint violation (23), or a program limit
     * (54: a value too large for its column or index). The same record fails the same way every time, so a consumer
     * dead-letters it instead of retrying; everything else (a lost connection, a serialization failure, a timeout)
     * may succeed later.
     */
    public static boolean isDataRefusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                return state.startsWith("22") || state.startsWith("23") || state.startsWith("54");
            }
        }
        return false;
    }
}
