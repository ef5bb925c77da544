package dev.onejob.core.db;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Which database failures a consumer parks (the record's own data) and which it retries (everything else). */
class DatabaseExceptionTest {
    private static DatabaseException failure(String sqlState) {
        return new DatabaseException(new SQLException("refused", sqlState));
    }

    @Test
    void dataExceptionsConstraintViolationsAndProgramLimitsAreTheRecordsOwn() {
        assertTrue(DatabaseException.isDataRefusal(failure("22P05")), "untranslatable character (U+0000 in jsonb)");
        assertTrue(DatabaseException.isDataRefusal(failure("22003")), "numeric value out of range");
        assertTrue(DatabaseException.isDataRefusal(failure("23505")), "unique violation");
        assertTrue(DatabaseException.isDataRefusal(failure("54000")), "program limit exceeded");
    }

    @Test
    void lostConnectionsSerializationFailuresAndTimeoutsMaySucceedLater() {
        assertFalse(DatabaseException.isDataRefusal(failure("08006")));
        assertFalse(DatabaseException.isDataRefusal(failure("40001")));
        assertFalse(DatabaseException.isDataRefusal(failure("57014")));
        assertFalse(DatabaseException.isDataRefusal(new RuntimeException("no SQL state")));
    }
}
