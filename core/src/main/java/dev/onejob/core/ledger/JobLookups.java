package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.LedgerRows.ATTEMPT_COLUMNS;
import static dev.onejob.core.ledger.LedgerRows.JOB_COLUMNS;

import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Finds one job or attempt by its id or its key, live or archived ({@link KeyRetention}): what the API answers a
 * lookup with and what the other ledger stores read before they take a lock. Read-only.
 */
public final class JobLookups {
    private static final String SELECT_JOB_BY_KEY =
            "SELECT " + JOB_COLUMNS + " FROM jobs WHERE owner_id = ? AND idempotency_key = ?";
    private static final String SELECT_ARCHIVED_JOB = "SELECT " + JOB_COLUMNS + " FROM jobs_archive WHERE id = ?";
    private static final String SELECT_TOMBSTONED_JOB = "SELECT " + JOB_COLUMNS + " FROM jobs_archive " + """
             WHERE id = (SELECT job_id FROM idempotency_tombstones
                         WHERE owner_id = ? AND idempotency_key = ? AND expires_at > now())""";
    private static final String SELECT_ARCHIVED_ATTEMPTS_OF_JOB =
            "SELECT " + ATTEMPT_COLUMNS + " FROM attempts_archive WHERE job_id = ? ORDER BY number";
    private static final String COUNT_JOBS = "SELECT count(*) FROM jobs";

    private final Database database;

    public JobLookups(Database database) {
        this.database = database;
    }

    /** The job, live or archived ({@link KeyRetention}). */
    public Optional<Job> job(UUID jobId) {
        return database.inTransaction(connection ->
                LedgerSql.queryOne(connection, LedgerSteps.SELECT_JOB, LedgerRows::job, jobId)
                        .or(() -> archived(connection, SELECT_ARCHIVED_JOB, jobId)));
    }

    /** The job the key names: a live one, or an archived one whose tombstone still holds the key. */
    public Optional<Job> jobForKey(String ownerId, String idempotencyKey) {
        return database.inTransaction(connection ->
                LedgerSql.queryOne(connection, SELECT_JOB_BY_KEY, LedgerRows::job, ownerId, idempotencyKey)
                        .or(() -> archived(connection, SELECT_TOMBSTONED_JOB, ownerId, idempotencyKey)));
    }

    private static Optional<Job> archived(Connection connection, String sql, Object... args) {
        try {
            return LedgerSql.queryOne(connection, sql, LedgerRows::job, args);
        } catch (SQLException e) {
            throw new DatabaseException(e);
        }
    }

    public long jobsCount() {
        return database.inTransaction(connection -> LedgerSql.queryOne(connection, COUNT_JOBS,
                row -> row.getLong(1)).orElseThrow());
    }

    public Optional<Attempt> attempt(UUID attemptId) {
        return database.inTransaction(connection ->
                LedgerSql.queryOne(connection, LedgerSteps.SELECT_ATTEMPT, LedgerRows::attempt, attemptId));
    }

    /** A job's attempts, live or archived. */
    public List<Attempt> attempts(UUID jobId) {
        return database.inTransaction(connection -> {
            List<Attempt> live = LedgerSql.queryList(connection, LedgerSteps.SELECT_ATTEMPTS_OF_JOB,
                    LedgerRows::attempt, jobId);
            return live.isEmpty() ? LedgerSql.queryList(connection, SELECT_ARCHIVED_ATTEMPTS_OF_JOB,
                    LedgerRows::attempt, jobId) : live;
        });
    }
}
