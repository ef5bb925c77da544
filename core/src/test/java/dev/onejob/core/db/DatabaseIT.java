package dev.onejob.core.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.testing.TestDatabase;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** What a transaction reports when its connection dies under it, as when PostgreSQL restarts. */
class DatabaseIT {
    private final Database database = Database.wrap(TestDatabase.shared().dataSource());

    @Test
    void aConnectionKilledMidTransactionReportsTheServersCauseAndCountsAsUnavailable() {
        DatabaseException failure = assertThrows(DatabaseException.class, () -> database.inTransaction(connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT pg_terminate_backend(pg_backend_pid())");
            }
            return null;
        }));

        assertTrue(DatabaseException.isUnavailable(failure), "the server's own cause is reported, not the failed "
                + "rollback on the dead connection: " + failure.getMessage() + " (SQLState " + failure.sqlState()
                + ")");
        assertEquals(1, (int) database.inTransaction(connection -> {
            try (Statement statement = connection.createStatement(); ResultSet one = statement.executeQuery("SELECT 1")) {
                one.next();
                return one.getInt(1);
            }
        }), "the pool hands out a working connection afterwards");
    }
}
