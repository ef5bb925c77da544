package dev.onejob.core.db;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

class DatabaseExceptionTest {

    @Test
    void aLostOrRefusedConnectionIsUnavailableWhereverItIsInTheCauses() {
        assertTrue(DatabaseException.isUnavailable(new DatabaseException(new SQLException("I/O error", "08006"))));
        assertTrue(DatabaseException.isUnavailable(new IllegalStateException("wrapped",
                new SQLException("the database system is shutting down", "57P01"))));
        assertTrue(DatabaseException.isUnavailable(new SQLException("the database system is starting up", "57P03")));
        assertTrue(DatabaseException.isUnavailable(new SQLException("too many clients", "53300")));
        assertTrue(DatabaseException.isUnavailable(new SQLTransientConnectionException("pool: connection is not "
                + "available, request timed out after 30000ms")));
    }

    @Test
    void aBrokenInvariantOrABadStatementIsNot() {
        assertFalse(DatabaseException.isUnavailable(new DatabaseException(new SQLException("unique", "23505"))));
        assertFalse(DatabaseException.isUnavailable(new SQLException("syntax", "42601")));
        assertFalse(DatabaseException.isUnavailable(new SQLException("no state")));
        assertFalse(DatabaseException.isUnavailable(new IllegalStateException("two rows changed")));
    }
}
