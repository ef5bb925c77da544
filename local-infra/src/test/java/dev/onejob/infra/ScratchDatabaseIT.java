package dev.onejob.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The scratch database every harness makes: created fresh, migrated, dropped unless kept. */
class ScratchDatabaseIT {
    private static final PostgresServer SERVER = PostgresServer.fromEnvironment();

    @Test
    void aScratchDatabaseIsMigratedAndDroppedOnClose() throws Exception {
        String name = "onejob_infra_it_" + ProcessHandle.current().pid();
        try (ScratchDatabase database = ScratchDatabase.create(SERVER, name, false)) {
            assertTrue(SERVER.exists(name));
            assertEquals(0, database.count("SELECT count(*) FROM jobs"), "the ledger's tables are there, empty");
            assertEquals(1, database.count("SELECT count(*) FROM pg_tables WHERE tablename = 'outbox'"));
        }
        assertFalse(SERVER.exists(name), "dropped on close");
    }

    @Test
    void aKeptDatabaseOutlivesItsRunAndIsReplacedByTheNextOfTheSameName() throws Exception {
        String name = "onejob_infra_it_kept_" + ProcessHandle.current().pid();
        try {
            try (ScratchDatabase first = ScratchDatabase.create(SERVER, name, true)) {
                first.execute("CREATE TABLE left_behind (x int)");
            }
            assertTrue(SERVER.exists(name), "kept");
            try (ScratchDatabase second = ScratchDatabase.create(SERVER, name, false)) {
                assertEquals(0, second.count("SELECT count(*) FROM pg_tables WHERE tablename = 'left_behind'"),
                        "a fresh database, not the kept one");
            }
        } finally {
            SERVER.drop(name);
        }
    }

    @Test
    void createIfMissingCreatesOnceAndQuotesTheName() {
        String name = "onejob-infra-it-" + ProcessHandle.current().pid();
        try {
            assertTrue(SERVER.createIfMissing(name));
            assertFalse(SERVER.createIfMissing(name), "already there");
            assertTrue(SERVER.databases("onejob-infra-it-").contains(name));
        } finally {
            SERVER.drop(name);
        }
        assertFalse(SERVER.exists(name));
    }
}
