package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.json.Json;
import dev.onejob.testing.StartGate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

class SubmitIT {
    private final LedgerFixture ledger = new LedgerFixture();

    @Test
    void doubleClickReturnsTheSameJob() {
        for (int round = 0; round < 100; round++) {
            // given 64 callers with the same owner, key and payload
            String key = LedgerFixture.freshKey();
            List<Callable<SubmitOutcome>> clicks = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                clicks.add(() -> ledger.store.submissions().submit(LedgerFixture.newJob("owner-a", key, "I loved it")));
            }

            // when they are released together
            List<SubmitOutcome> outcomes = StartGate.race(clicks);

            // then one created the job, every other call got that same job back, and one row of each kind exists
            Set<UUID> jobIds = new HashSet<>();
            int created = 0;
            for (SubmitOutcome outcome : outcomes) {
                if (outcome instanceof SubmitOutcome.Created c) {
                    created++;
                    jobIds.add(c.job().id());
                } else {
                    jobIds.add(assertInstanceOf(SubmitOutcome.Replayed.class, outcome).job().id());
                }
            }
            assertEquals(1, created, "round " + round);
            assertEquals(1, jobIds.size(), "round " + round);
            UUID jobId = jobIds.iterator().next();
            assertEquals(1, ledger.count("SELECT count(*) FROM jobs WHERE owner_id = 'owner-a' AND idempotency_key = ?", key));
            assertEquals(1, ledger.count("SELECT count(*) FROM attempts WHERE job_id = ?", jobId));
            assertEquals(1, ledger.outboxEvents("attempt-commands", jobId));
        }
    }

    @Test
    void sameKeyDifferentPayloadIsAConflictAndLeavesTheJobUntouched() {
        // given a job
        String key = LedgerFixture.freshKey();
        SubmitOutcome.Created first = assertInstanceOf(SubmitOutcome.Created.class,
                ledger.store.submissions().submit(LedgerFixture.newJob("owner-a", key, "I loved it")));

        // when the same key comes with another payload
        SubmitOutcome second = ledger.store.submissions().submit(LedgerFixture.newJob("owner-a", key, "I hated it"));

        // then it is a conflict naming the existing job, which is exactly as it was
        SubmitOutcome.Conflict conflict = assertInstanceOf(SubmitOutcome.Conflict.class, second);
        assertEquals(first.job().id(), conflict.existingJobId());
        Job after = ledger.store.lookups().job(first.job().id()).orElseThrow();
        assertEquals(first.job().request(), after.request());
        assertEquals(first.job().requestFingerprint(), after.requestFingerprint());
        assertEquals(first.job().version(), after.version());
        assertEquals(1, ledger.count("SELECT count(*) FROM attempts WHERE job_id = ?", after.id()));
    }

    @Test
    void samePayloadFormattedDifferentlyIsAReplay() {
        String key = LedgerFixture.freshKey();
        var compact = Json.parse("{\"a\":1,\"b\":[1.0,2]}");
        var spaced = Json.parse("{ \"b\" : [1, 2.00], \"a\" : 1 }");
        SubmitOutcome.Created first = assertInstanceOf(SubmitOutcome.Created.class, ledger.store.submissions().submit(
                new NewJob("owner-a", key, compact, "sentiment", "primary", List.of())));
        SubmitOutcome again = ledger.store.submissions().submit(new NewJob("owner-a", key, spaced, "sentiment", "primary", List.of()));
        assertEquals(first.job().id(), assertInstanceOf(SubmitOutcome.Replayed.class, again).job().id());
    }

    @Test
    void sameKeyDifferentOwnerMakesTwoJobs() {
        String key = LedgerFixture.freshKey();
        SubmitOutcome a = ledger.store.submissions().submit(LedgerFixture.newJob("owner-a", key, "I loved it"));
        SubmitOutcome b = ledger.store.submissions().submit(LedgerFixture.newJob("owner-b", key, "I loved it"));
        UUID jobA = assertInstanceOf(SubmitOutcome.Created.class, a).job().id();
        UUID jobB = assertInstanceOf(SubmitOutcome.Created.class, b).job().id();
        assertNotEquals(jobA, jobB);
        assertEquals(2, ledger.count("SELECT count(*) FROM jobs WHERE idempotency_key = ?", key));
    }

    @Test
    void theDatabaseRefusesKeysOutsidePrintableAsciiEvenWithoutTheCodeCheck() {
        var error = Assertions.assertThrows(DatabaseException.class,
                () -> ledger.database.inTransaction(connection -> {
                    try (var statement = connection.prepareStatement("""
                            INSERT INTO jobs (id, owner_id, idempotency_key, request_fingerprint, request, contract,
                                              target_provider)
                            VALUES (gen_random_uuid(), 'owner-a', ?, repeat('a', 64), '{}', 'c', 'p')""")) {
                        statement.setString(1, "tab\tkey");
                        return statement.executeUpdate();
                    }
                }));
        assertEquals("23514", error.sqlState()); // check_violation
    }
}
