package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.OwnerPolicies;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.testing.MovableClock;
import dev.onejob.testing.TestDatabase;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Key retention on a database of its own (it archives every old finished job it finds), with a clock the test moves:
 * an archived job's key answers replays and conflicts from its tombstone until its owner's window ends, then creates
 * a new job; an unfinished job is never archived; a job is readable by id and key from the archive.
 */
class KeyRetentionIT {
    @AutoClose
    private static final TestDatabase DB = TestDatabase.createPrivate();
    private static final Database database = Database.wrap(DB.dataSource());
    private static final Ledger store = new Ledger(database);

    private final MovableClock clock = new MovableClock(Instant.now());
    // alice keeps keys a week; archiving one day after creation
    private final KeyRetention retention = new KeyRetention(database, OwnerPolicies.retaining(Duration.ofDays(7),
            Map.of("bob", Duration.ofHours(12))), Duration.ofDays(1), Duration.ofMinutes(1), clock);

    private Job finishedJob(String owner, String key) {
        SubmitOutcome.Created created = assertInstanceOf(SubmitOutcome.Created.class,
                store.submissions().submit(LedgerFixture.newJob(owner, key, "I loved it")));
        store.interventions().cancelJob(created.job().id(), "finished for the test");
        return created.job();
    }

    @Test
    void aTombstoneAnswersTheKeyUntilTheWindowEndsThenTheKeyIsFree() {
        // given alice's finished job, two days old by the retention's clock
        Job job = finishedJob("alice", "k-1");
        clock.set(Instant.now().plus(Duration.ofDays(2)));

        // when retention runs
        KeyRetention.Round round = retention.runOnce();

        // then the job and its attempt are archived, and a tombstone holds the key
        assertTrue(round.archived() >= 1 && round.tombstoned() >= 1, round.toString());
        assertEquals(0, count("SELECT count(*) FROM jobs WHERE id = ?", job.id()));
        assertEquals(1, count("SELECT count(*) FROM jobs_archive WHERE id = ?", job.id()));
        assertEquals(1, count("SELECT count(*) FROM attempts_archive WHERE job_id = ?", job.id()));
        SubmitOutcome.Replayed replay = assertInstanceOf(SubmitOutcome.Replayed.class,
                store.submissions().submit(LedgerFixture.newJob("alice", "k-1", "I loved it")));
        assertEquals(job.id(), replay.job().id());
        assertEquals(JobStatus.CANCELLED, replay.job().status());
        SubmitOutcome.Conflict conflict = assertInstanceOf(SubmitOutcome.Conflict.class,
                store.submissions().submit(LedgerFixture.newJob("alice", "k-1", "another payload")));
        assertEquals(job.id(), conflict.existingJobId());
        assertEquals(job.id(), store.lookups().jobForKey("alice", "k-1").orElseThrow().id());
        assertEquals(1, store.lookups().attempts(job.id()).size());

        // when the window has ended by the clock
        clock.set(Instant.now().plus(Duration.ofDays(8)));
        KeyRetention.Round later = retention.runOnce();

        // then the tombstone is gone and the key creates a new job; the old one stays readable by id
        assertTrue(later.expired() >= 1, later.toString());
        SubmitOutcome.Created again = assertInstanceOf(SubmitOutcome.Created.class,
                store.submissions().submit(LedgerFixture.newJob("alice", "k-1", "another payload")));
        assertNotEquals(job.id(), again.job().id());
        assertEquals(job.id(), store.lookups().job(job.id()).orElseThrow().id());
    }

    @Test
    void aShortWindowEndsWithTheArchiveAndAnUnfinishedJobIsNeverArchived() {
        // given bob's finished job (window 12 h) and an unfinished one, both two days old by the clock
        Job finished = finishedJob("bob", "k-short");
        SubmitOutcome.Created running = assertInstanceOf(SubmitOutcome.Created.class,
                store.submissions().submit(LedgerFixture.newJob("bob", "k-running", "still going")));
        clock.set(Instant.now().plus(Duration.ofDays(2)));

        // when retention runs
        retention.runOnce();

        // then the finished job is archived without a tombstone (its window is over), the unfinished one is live
        assertEquals(1, count("SELECT count(*) FROM jobs_archive WHERE id = ?", finished.id()));
        assertEquals(0, count("SELECT count(*) FROM idempotency_tombstones WHERE job_id = ?", finished.id()));
        assertInstanceOf(SubmitOutcome.Created.class, store.submissions().submit(LedgerFixture.newJob("bob", "k-short", "new")));
        assertEquals(1, count("SELECT count(*) FROM jobs WHERE id = ?", running.job().id()));
        assertInstanceOf(SubmitOutcome.Replayed.class, store.submissions().submit(LedgerFixture.newJob("bob", "k-running",
                "still going")));
    }

    @Test
    void theDatabaseRefusesAJobForAKeyATombstoneHolds() {
        // given a key held by a tombstone (its job archived): what an insert that waited on the archiving would meet
        Job job = finishedJob("carol", "k-held");
        clock.set(Instant.now().plus(Duration.ofDays(2)));
        retention.runOnce();

        // when a plain insert of a job with that key gets past the intake's own check
        DatabaseException refused = Assertions.assertThrows(
                DatabaseException.class, () -> database.inTransaction(connection -> {
                    try (PreparedStatement insert = connection.prepareStatement("""
                            INSERT INTO jobs (id, owner_id, idempotency_key, request_fingerprint, request, contract,
                                              target_provider, fallback_providers)
                            VALUES (gen_random_uuid(), 'carol', 'k-held', repeat('a', 64), '{}', 'sentiment', 'primary',
                                    '{}')""")) {
                        return insert.executeUpdate();
                    }
                }));

        // then PostgreSQL refuses it as the unique constraint would, and the intake answers the key as a replay
        assertTrue(DatabaseException.isDataRefusal(refused), refused.toString());
        assertTrue(refused.getMessage().contains("archived job"), refused.getMessage());
        assertEquals(job.id(), assertInstanceOf(SubmitOutcome.Replayed.class,
                store.submissions().submit(LedgerFixture.newJob("carol", "k-held", "I loved it"))).job().id());
    }

    private static long count(String sql, Object arg) {
        return database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setObject(1, arg);
                try (ResultSet rows = statement.executeQuery()) {
                    rows.next();
                    return rows.getLong(1);
                }
            }
        });
    }

}
