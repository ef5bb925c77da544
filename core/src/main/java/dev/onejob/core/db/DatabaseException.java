package dev.onejob.core.db;

import java.sql.SQLException;

/** A database failure no store could turn into an answer: the database is down, or an invariant broke. */
public final class DatabaseException extends RuntimeException {
    public DatabaseException(SQLException cause) {
        super(cause.getMessage() + " (SQLState " + cause.getSQLState() + ")", cause);
    }

    public String sqlState() {
        return ((SQLException) getCause()).getSQLState();
    }
}
