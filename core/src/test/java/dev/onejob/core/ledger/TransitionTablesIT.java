package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.onejob.core.db.DatabaseException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;

/** The state machines exist twice, as code and as the database's trigger tables; this keeps them the same. */
class TransitionTablesIT {
    private final LedgerFixture ledger = new LedgerFixture();

    private Set<List<String>> table(String name) {
        return ledger.database.inTransaction(connection -> {
            Set<List<String>> pairs = new HashSet<>();
            try (var rows = connection.createStatement().executeQuery("SELECT from_status, to_status FROM " + name)) {
                while (rows.next()) {
                    pairs.add(List.of(rows.getString(1), rows.getString(2)));
                }
            }
            return pairs;
        });
    }

    /** The (from, to) pairs the code allows, by name, as the transition tables hold them. */
    private static <S extends Enum<S>> Set<List<String>> allowedInCode(S[] statuses, BiPredicate<S, S> allowed) {
        Set<List<String>> pairs = new HashSet<>();
        for (S from : statuses) {
            for (S to : statuses) {
                if (allowed.test(from, to)) {
                    pairs.add(List.of(from.name(), to.name()));
                }
            }
        }
        return pairs;
    }

    @Test
    void attemptTransitionsInTheDatabaseMatchTheCode() {
        assertEquals(allowedInCode(AttemptStatus.values(), AttemptStatus::allowed), table("attempt_transitions"));
    }

    @Test
    void jobTransitionsInTheDatabaseMatchTheCode() {
        assertEquals(allowedInCode(JobStatus.values(), JobStatus::allowed), table("job_transitions"));
    }

    @Test
    void theDatabaseRefusesAnIllegalTransitionWrittenByHand() {
        Attempt attempt = ledger.submitted("owner-a").firstAttempt();
        var error = assertThrows(DatabaseException.class, () -> ledger.database.inTransaction(connection -> {
            try (var statement = connection.prepareStatement("UPDATE attempts SET status = 'SUCCEEDED' WHERE id = ?")) {
                statement.setObject(1, attempt.id());
                return statement.executeUpdate();
            }
        }));
        assertEquals("23514", error.sqlState());
        assertEquals(AttemptStatus.PENDING, ledger.store.lookups().attempt(attempt.id()).orElseThrow().status());
    }

    @Test
    void theDatabaseRefusesASecondLiveAttemptWrittenByHand() {
        Attempt attempt = ledger.submitted("owner-a").firstAttempt();
        var error = assertThrows(DatabaseException.class, () -> ledger.database.inTransaction(connection -> {
            try (var statement = connection.prepareStatement(
                    "INSERT INTO attempts (id, job_id, number, provider, job_version) VALUES (gen_random_uuid(), ?, 2, 'backup', 1)")) {
                statement.setObject(1, attempt.jobId());
                return statement.executeUpdate();
            }
        }));
        assertEquals("23505", error.sqlState()); // unique_violation on attempts_job_id_live_idx
    }
}
