package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.LedgerRows.JOB_COLUMNS;

import dev.onejob.core.config.OwnerPolicies;
import dev.onejob.core.db.Database;
import dev.onejob.core.service.PeriodicRounds;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps idempotency keys for their published window and no longer, on its own schedule ({@code RETENTION_EVERY}).
 * Each round, in windows of {@link #WINDOW} jobs, each its own transaction:
 * <ol>
 *   <li>finished jobs created more than {@code ARCHIVE_AFTER} ago move, with their attempts and operator actions, to
 *       the {@code *_archive} tables (one statement: the live tables' foreign keys are checked at its end); a job
 *       whose owner's key window ({@link OwnerPolicies#keyRetentionFor}, from the job's creation) has not ended gets a
 *       tombstone in the same transaction, which keeps its key until then;</li>
 *   <li>tombstones past their expiry are deleted: from then on the key may create a new job.</li>
 * </ol>
 * An unfinished job is never archived, so its key holds whatever happens to it. Time comes from a {@link Clock}, so
 * tests move it instead of waiting. Several instances skip each other's rows ({@code SKIP LOCKED}).
 */
public final class KeyRetention extends PeriodicRounds {
    private static final Logger log = LoggerFactory.getLogger(KeyRetention.class);
    static final int WINDOW = 1_000;
    public static final Duration DEFAULT_ARCHIVE_AFTER = Duration.ofDays(1);
    public static final Duration DEFAULT_EVERY = Duration.ofMinutes(1);

    /**
     * Moves a window of the oldest finished jobs created before the cutoff, with everything that refers to them, to
     * the archive; answers the moved jobs. Walks {@code jobs_created_at_idx}, so it costs the window, not the ledger.
     * Rows go to the archive by column name, not position: a column added to a live table and its archive table by a
     * later migration sits at a different position in each (after {@code archived_at} in the archive).
     */
    static final String ARCHIVE_FINISHED_JOBS = """
            WITH picked AS (
                SELECT id FROM jobs
                WHERE created_at < ? AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')
                ORDER BY created_at, id
                LIMIT ?
                FOR UPDATE SKIP LOCKED
            ), actions AS (
                DELETE FROM operator_actions o USING picked p WHERE o.job_id = p.id RETURNING o.*
            ), tries AS (
                DELETE FROM attempts a USING picked p WHERE a.job_id = p.id RETURNING a.*
            ), moved AS (
                DELETE FROM jobs j USING picked p WHERE j.id = p.id RETURNING j.*
            ), archived_actions AS (
                INSERT INTO operator_actions_archive SELECT (jsonb_populate_record(null::operator_actions_archive,
                    to_jsonb(actions) || jsonb_build_object('archived_at', ?::timestamptz))).* FROM actions
            ), archived_tries AS (
                INSERT INTO attempts_archive SELECT (jsonb_populate_record(null::attempts_archive,
                    to_jsonb(tries) || jsonb_build_object('archived_at', ?::timestamptz))).* FROM tries
            ), archived AS (
                INSERT INTO jobs_archive SELECT (jsonb_populate_record(null::jobs_archive,
                    to_jsonb(moved) || jsonb_build_object('archived_at', ?::timestamptz))).* FROM moved RETURNING id
            )
            SELECT\s""" + JOB_COLUMNS + " FROM moved";
    static final String INSERT_TOMBSTONES = """
            INSERT INTO idempotency_tombstones (owner_id, idempotency_key, request_fingerprint, job_id, expires_at)
            SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::uuid[], ?::timestamptz[])""";
    static final String DELETE_EXPIRED_TOMBSTONES = """
            DELETE FROM idempotency_tombstones WHERE ctid IN (
                SELECT ctid FROM idempotency_tombstones WHERE expires_at <= ? ORDER BY expires_at LIMIT ?
                FOR UPDATE SKIP LOCKED)""";

    private final Database database;
    private final OwnerPolicies policies;
    private final Duration archiveAfter;
    private final Clock clock;

    public KeyRetention(Database database, OwnerPolicies policies, Duration archiveAfter, Duration every,
                        Clock clock) {
        super(every, "key_retention_failed");
        this.database = database;
        this.policies = policies;
        this.archiveAfter = archiveAfter;
        this.clock = clock;
    }

    @Override
    protected void round() {
        runOnce();
    }

    /** What one round did. */
    public record Round(long archived, long tombstoned, long expired) {
    }

    /** One round, at the clock's now. */
    public Round runOnce() {
        Instant now = clock.instant();
        long archived = 0;
        long tombstoned = 0;
        int last;
        do {
            long[] counts = database.inTransaction(connection -> archiveWindow(connection, now));
            last = (int) counts[0];
            archived += counts[0];
            tombstoned += counts[1];
        } while (last >= WINDOW && !stopping());
        long expired = 0;
        do {
            last = database.inTransaction(connection -> LedgerSql.update(connection, DELETE_EXPIRED_TOMBSTONES,
                    Timestamp.from(now), WINDOW));
            expired += last;
        } while (last >= WINDOW && !stopping());
        if (archived + expired > 0) {
            log.info("event=key_retention archived_jobs={} tombstones={} expired_tombstones={}", archived, tombstoned,
                    expired);
        }
        return new Round(archived, tombstoned, expired);
    }

    private long[] archiveWindow(Connection connection, Instant now) throws SQLException {
        Timestamp at = Timestamp.from(now);
        List<Job> moved = LedgerSql.queryList(connection, ARCHIVE_FINISHED_JOBS, LedgerRows::job,
                Timestamp.from(now.minus(archiveAfter)), WINDOW, at, at, at);
        List<Object> owners = new ArrayList<>();
        List<Object> keys = new ArrayList<>();
        List<Object> fingerprints = new ArrayList<>();
        List<Object> jobs = new ArrayList<>();
        List<Object> expiries = new ArrayList<>();
        for (Job job : moved) {
            Instant expiry = job.createdAt().plus(policies.keyRetentionFor(job.ownerId()));
            if (expiry.isAfter(now)) {
                owners.add(job.ownerId());
                keys.add(job.idempotencyKey());
                fingerprints.add(job.requestFingerprint());
                jobs.add(job.id());
                expiries.add(Timestamp.from(expiry));
            }
        }
        if (!jobs.isEmpty()) {
            LedgerSql.update(connection, INSERT_TOMBSTONES, connection.createArrayOf("text", owners.toArray()),
                    connection.createArrayOf("text", keys.toArray()),
                    connection.createArrayOf("text", fingerprints.toArray()),
                    connection.createArrayOf("uuid", jobs.toArray()),
                    connection.createArrayOf("timestamptz", expiries.toArray()));
        }
        return new long[] {moved.size(), jobs.size()};
    }
}
