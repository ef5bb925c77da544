package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.LedgerRows.ATTEMPT_COLUMNS;
import static dev.onejob.core.ledger.LedgerRows.JOB_COLUMNS;

import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.events.JobResult;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.outbox.OutboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The steps more than one ledger store takes inside its own transaction: lock a job row, add an attempt with its
 * command (and move the job's version for it), record an operator action, queue a finished job's result. Each runs
 * on the caller's connection; none opens a transaction.
 *
 * <p>Lock order, everywhere: the job row first, then its attempts. Every statement that changes an attempt runs
 * after its job row is locked, so no two transactions wait on each other in opposite orders.
 *
 * <p>Version rule: {@code jobs.version} moves exactly when the set of attempts allowed to win changes (an attempt is
 * created, an attempt ends without winning, the job completes or is cancelled). An attempt may complete the job only
 * under the version it was created with.
 */
final class LedgerSteps {
    static final String LOCK_JOB = "SELECT " + JOB_COLUMNS + " FROM jobs WHERE id = ? FOR NO KEY UPDATE";
    static final String SELECT_JOB = "SELECT " + JOB_COLUMNS + " FROM jobs WHERE id = ?";
    static final String SELECT_ATTEMPT = "SELECT " + ATTEMPT_COLUMNS + " FROM attempts WHERE id = ?";
    static final String SELECT_ATTEMPTS_OF_JOB =
            "SELECT " + ATTEMPT_COLUMNS + " FROM attempts WHERE job_id = ? ORDER BY number";
    private static final String INSERT_ATTEMPT_IF_NONE_LIVE = """
            INSERT INTO attempts (id, job_id, number, provider, job_version, certification_override, not_before)
            VALUES (?, ?, (SELECT coalesce(max(number), 0) + 1 FROM attempts WHERE job_id = ?), ?, ?, ?,
                    now() + ?::bigint * interval '1 millisecond')
            ON CONFLICT (job_id) WHERE status IN ('PENDING', 'STARTING', 'UNKNOWN') DO NOTHING
            RETURNING\s""" + ATTEMPT_COLUMNS;
    private static final String BUMP_VERSION_FOR_NEW_ATTEMPT =
            "UPDATE jobs SET version = version + 1, status = 'QUEUED' WHERE id = ? AND version = ?";
    private static final String INSERT_OPERATOR_ACTION = """
            INSERT INTO operator_actions (job_id, attempt_id, actor, action, reason) VALUES (?, ?, ?, ?, ?)""";

    private LedgerSteps() {
    }

    static Job lockJob(Connection connection, UUID jobId) throws SQLException {
        return LedgerSql.queryOne(connection, LOCK_JOB, LedgerRows::job, jobId)
                .orElseThrow(() -> new IllegalStateException("attempt references missing job " + jobId));
    }

    static String currentStatus(Connection connection, UUID attemptId) throws SQLException {
        return LedgerSql.queryOne(connection, SELECT_ATTEMPT, LedgerRows::attempt, attemptId)
                .map(a -> a.status().name()).orElse(null);
    }

    static Optional<Attempt> insertAttempt(Connection connection, Job job, String provider, long jobVersion,
                                           String override) throws SQLException {
        return insertAttempt(connection, job, provider, jobVersion, override, null);
    }

    /** A new attempt and its command, which waits {@code notBefore} (null: none) in the outbox before it is sent. */
    static Optional<Attempt> insertAttempt(Connection connection, Job job, String provider, long jobVersion,
                                           String override, Duration notBefore) throws SQLException {
        Optional<Attempt> created = LedgerSql.queryOne(connection, INSERT_ATTEMPT_IF_NONE_LIVE, LedgerRows::attempt,
                UUID.randomUUID(), job.id(), job.id(), provider, jobVersion, override,
                notBefore == null ? null : notBefore.toMillis());
        if (created.isPresent()) {
            String id = created.get().id().toString();
            var command = LedgerEvents.attemptCommand(job, created.get()).toJson();
            if (notBefore == null) {
                OutboxStore.enqueue(connection, Topics.ATTEMPT_COMMANDS, id, job.id().toString(), command,
                        AttemptCommand.VERSION);
            } else {
                OutboxStore.enqueueDeferred(connection, Topics.ATTEMPT_COMMANDS, id, job.id().toString(), command,
                        AttemptCommand.VERSION, notBefore);
            }
        }
        return created;
    }

    /** The job's version moved on for the attempt just created under its lock (QUEUED again). */
    static void bumpVersionForNewAttempt(Connection connection, Job job) throws SQLException {
        LedgerSql.updateExactlyOne(connection, BUMP_VERSION_FOR_NEW_ATTEMPT, "job version moved under lock",
                job.id(), job.version());
    }

    static void record(Connection connection, Attempt attempt, OperatorAction action) throws SQLException {
        LedgerSql.update(connection, INSERT_OPERATOR_ACTION, attempt.jobId(), attempt.id(), action.actor(),
                action.action(), action.reason());
    }

    static void enqueueJobResult(Connection connection, UUID jobId) throws SQLException {
        Job job = LedgerSql.queryOne(connection, SELECT_JOB, LedgerRows::job, jobId).orElseThrow();
        List<Attempt> attempts = LedgerSql.queryList(connection, SELECT_ATTEMPTS_OF_JOB, LedgerRows::attempt, jobId);
        OutboxStore.enqueue(connection, Topics.JOB_RESULTS, jobId.toString(), jobId.toString(),
                LedgerEvents.jobResult(job, attempts).toJson(), JobResult.VERSION);
    }
}
