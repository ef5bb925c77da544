package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.LedgerRows.ATTEMPT_COLUMNS;

import dev.onejob.core.db.Database;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * What people do to a job by hand: the fallback button (a new attempt on a provider of the job's chain), an
 * operator resolving a STARTING or UNKNOWN attempt FAILED or CANCELLED, the owner cancelling the job; and the record
 * of the operators' actions, written in the same transaction as the change they made. Each is conditional on the
 * job's state under its lock ({@link LedgerSteps}); a refusal is an outcome, not an exception.
 */
public final class JobInterventions {
    private static final String SELECT_LIVE_ATTEMPT = "SELECT " + ATTEMPT_COLUMNS
            + " FROM attempts WHERE job_id = ? AND status IN ('PENDING', 'STARTING', 'UNKNOWN')";
    private static final String SELECT_OPERATOR_ACTIONS_LIVE_OR_ARCHIVED = """
            SELECT job_id, attempt_id, actor, action, reason, created_at FROM (
                SELECT id, job_id, attempt_id, actor, action, reason, created_at FROM operator_actions WHERE job_id = ?
                UNION ALL
                SELECT id, job_id, attempt_id, actor, action, reason, created_at FROM operator_actions_archive
                WHERE job_id = ?) AS a
            ORDER BY id""";
    private static final String CANCEL_ATTEMPT_IF_RESOLVABLE = """
            UPDATE attempts SET status = 'CANCELLED', finished_at = now(), error_code = 'cancelled', error_message = ?
            WHERE id = ? AND (status = 'UNKNOWN' OR status = 'STARTING' AND soft_deadline <= now())""";
    private static final String BUMP_VERSION_AWAITING_OWNER =
            "UPDATE jobs SET version = version + 1, status = 'NEEDS_ACTION' WHERE id = ? AND version = ?";
    private static final String CANCEL_JOB_IF_UNFINISHED = """
            UPDATE jobs SET status = 'CANCELLED', version = version + 1, finished_at = now(),
                            error_code = 'cancelled', error_message = ?
            WHERE id = ? AND status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED')""";
    private static final String CANCEL_LIVE_ATTEMPTS_OF_JOB = """
            UPDATE attempts SET status = 'CANCELLED', finished_at = now(), error_code = 'job_cancelled',
                                error_message = ?
            WHERE job_id = ? AND status IN ('PENDING', 'STARTING', 'UNKNOWN')""";

    private final Database database;
    private final AttemptFailures failures;

    public JobInterventions(Database database) {
        this.database = database;
        this.failures = new AttemptFailures(database);
    }

    /** The fallback button: a new attempt on {@code provider}, if no attempt is live. */
    public NewAttemptOutcome newAttempt(UUID jobId, String provider) {
        return newAttempt(jobId, provider, null);
    }

    /**
     * The fallback button with the certification check overridden by an operator; {@code override} (who and why)
     * is recorded on the attempt. Null means no override.
     */
    public NewAttemptOutcome newAttempt(UUID jobId, String provider, String override) {
        return database.inTransaction(connection -> {
            Optional<Job> locked = LedgerSql.queryOne(connection, LedgerSteps.LOCK_JOB, LedgerRows::job, jobId);
            if (locked.isEmpty()) {
                return new NewAttemptOutcome.JobNotFound();
            }
            Job job = locked.get();
            if (job.status().isFinished()) {
                return new NewAttemptOutcome.JobFinished(job.status());
            }
            if (!job.providerChain().contains(provider)) {
                return new NewAttemptOutcome.ProviderNotAllowed(provider, job.providerChain());
            }
            Optional<Attempt> created = LedgerSteps.insertAttempt(connection, job, provider, job.version() + 1,
                    override);
            if (created.isEmpty()) {
                Attempt live = LedgerSql.queryOne(connection, SELECT_LIVE_ATTEMPT, LedgerRows::attempt, jobId)
                        .orElseThrow(() -> new IllegalStateException("live-attempt index refused, none is live"));
                return new NewAttemptOutcome.LiveAttemptExists(live.id(), live.status());
            }
            LedgerSteps.bumpVersionForNewAttempt(connection, job);
            return new NewAttemptOutcome.Created(created.get());
        });
    }

    /**
     * An operator resolves a STARTING or UNKNOWN attempt FAILED: the same as {@link AttemptFailures#fail}, and the
     * action recorded in the same transaction. Refused (Rejected, naming the soft deadline) while the attempt is
     * STARTING inside its soft deadline: its call may still answer, and failing over then would pay for a second
     * call.
     */
    public FailureOutcome resolveFailed(UUID attemptId, OperatorAction action, ProviderGate gate) {
        return failures.fail(attemptId, new AttemptFailure("resolved_failed", "resolved by " + action.actor() + ": "
                + action.reason(), false), gate, action);
    }

    /**
     * An operator resolves a STARTING or UNKNOWN attempt CANCELLED (the owner decides what next), the action recorded
     * in the same transaction; refused like {@link #resolveFailed} inside the soft deadline (NotApplied with the
     * attempt's status: STARTING then means inside its soft deadline).
     */
    public TransitionOutcome resolveCancelled(UUID attemptId, OperatorAction action) {
        String message = "resolved by " + action.actor() + ": " + action.reason();
        return database.inTransaction(connection -> {
            Optional<Attempt> attempt = LedgerSql.queryOne(connection, LedgerSteps.SELECT_ATTEMPT,
                    LedgerRows::attempt, attemptId);
            if (attempt.isEmpty()) {
                return new TransitionOutcome.NotApplied(null);
            }
            Job job = LedgerSteps.lockJob(connection, attempt.get().jobId());
            if (LedgerSql.update(connection, CANCEL_ATTEMPT_IF_RESOLVABLE, message, attemptId) == 0) {
                return new TransitionOutcome.NotApplied(LedgerSteps.currentStatus(connection, attemptId));
            }
            LedgerSql.updateExactlyOne(connection, BUMP_VERSION_AWAITING_OWNER, "job version moved under lock",
                    job.id(), job.version());
            LedgerSteps.record(connection, attempt.get(), action);
            return TransitionOutcome.applied();
        });
    }

    /** The operator actions on a job, oldest first. */
    public List<OperatorAction> operatorActions(UUID jobId) {
        return database.inTransaction(connection -> LedgerSql.queryList(connection,
                SELECT_OPERATOR_ACTIONS_LIVE_OR_ARCHIVED,
                row -> new OperatorAction(row.getObject("job_id", UUID.class), row.getObject("attempt_id", UUID.class),
                        row.getString("actor"), row.getString("action"), row.getString("reason"),
                        row.getTimestamp("created_at").toInstant()), jobId, jobId));
    }

    /** Cancels the job and its live attempt; a late result of any attempt is then discarded and audited. */
    public TransitionOutcome cancelJob(UUID jobId, String reason) {
        return database.inTransaction(connection -> {
            if (LedgerSql.update(connection, CANCEL_JOB_IF_UNFINISHED, reason, jobId) == 0) {
                Optional<Job> job = LedgerSql.queryOne(connection, LedgerSteps.SELECT_JOB, LedgerRows::job, jobId);
                return new TransitionOutcome.NotApplied(job.map(j -> j.status().name()).orElse(null));
            }
            LedgerSql.update(connection, CANCEL_LIVE_ATTEMPTS_OF_JOB, reason, jobId);
            LedgerSteps.enqueueJobResult(connection, jobId);
            return TransitionOutcome.applied();
        });
    }
}
