package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.LedgerRows.ATTEMPT_COLUMNS;
import static dev.onejob.core.ledger.LedgerRows.JOB_COLUMNS;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.RetryPolicy;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.events.JobResult;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.outbox.OutboxStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Owns every write to {@code jobs} and {@code attempts}: they form one ledger, and most changes touch both in one
 * transaction. The database decides every race: the unique key on (owner_id, idempotency_key) for submissions, the
 * partial unique index for "one live attempt", the version compare-and-swap for completion. Row counts are the
 * answers; outcomes are types, not exceptions.
 *
 * <p>Lock order, everywhere: the job row first, then its attempts. Every statement that changes an attempt runs
 * after its job row is locked, so no two transactions wait on each other in opposite orders.
 *
 * <p>Version rule: {@code jobs.version} moves exactly when the set of attempts allowed to win changes (an attempt is
 * created, an attempt ends without winning, the job completes or is cancelled). An attempt may complete the job only
 * under the version it was created with.
 */
public final class LedgerStore {
    private static final String SELECT_JOB_BY_KEY =
            "SELECT " + JOB_COLUMNS + " FROM jobs WHERE owner_id = ? AND idempotency_key = ?";
    private static final String LOCK_JOB =
            "SELECT " + JOB_COLUMNS + " FROM jobs WHERE id = ? FOR NO KEY UPDATE";
    private static final String INSERT_ATTEMPT_IF_NONE_LIVE = """
            INSERT INTO attempts (id, job_id, number, provider, job_version, certification_override, not_before)
            VALUES (?, ?, (SELECT coalesce(max(number), 0) + 1 FROM attempts WHERE job_id = ?), ?, ?, ?,
                    now() + ?::bigint * interval '1 millisecond')
            ON CONFLICT (job_id) WHERE status IN ('PENDING', 'STARTING', 'UNKNOWN') DO NOTHING
            RETURNING\s""" + ATTEMPT_COLUMNS;
    private static final String BUMP_VERSION_FOR_NEW_ATTEMPT =
            "UPDATE jobs SET version = version + 1, status = 'QUEUED' WHERE id = ? AND version = ?";
    private static final String COUNT_ATTEMPTS_ON_PROVIDER =
            "SELECT count(*) FROM attempts WHERE job_id = ? AND provider = ?";
    private static final String SELECT_LIVE_ATTEMPT = "SELECT " + ATTEMPT_COLUMNS
            + " FROM attempts WHERE job_id = ? AND status IN ('PENDING', 'STARTING', 'UNKNOWN')";
    private static final String SELECT_ATTEMPT = "SELECT " + ATTEMPT_COLUMNS + " FROM attempts WHERE id = ?";
    private static final String SELECT_ATTEMPTS_OF_JOB =
            "SELECT " + ATTEMPT_COLUMNS + " FROM attempts WHERE job_id = ? ORDER BY number";
    private static final String SELECT_JOB = "SELECT " + JOB_COLUMNS + " FROM jobs WHERE id = ?";
    private static final String SELECT_ARCHIVED_JOB = "SELECT " + JOB_COLUMNS + " FROM jobs_archive WHERE id = ?";
    private static final String SELECT_TOMBSTONED_JOB = "SELECT " + JOB_COLUMNS + " FROM jobs_archive " + """
             WHERE id = (SELECT job_id FROM idempotency_tombstones
                         WHERE owner_id = ? AND idempotency_key = ? AND expires_at > now())""";
    private static final String SELECT_ARCHIVED_ATTEMPTS_OF_JOB =
            "SELECT " + ATTEMPT_COLUMNS + " FROM attempts_archive WHERE job_id = ? ORDER BY number";
    private static final String SELECT_OPERATOR_ACTIONS_LIVE_OR_ARCHIVED = """
            SELECT job_id, attempt_id, actor, action, reason, created_at FROM (
                SELECT id, job_id, attempt_id, actor, action, reason, created_at FROM operator_actions WHERE job_id = ?
                UNION ALL
                SELECT id, job_id, attempt_id, actor, action, reason, created_at FROM operator_actions_archive
                WHERE job_id = ?) AS a
            ORDER BY id""";
    /** The job rows of a set of attempts, locked in id order: the lock order of {@link #startAll}. */
    private static final String LOCK_JOBS_OF_ATTEMPTS = """
            SELECT id FROM jobs WHERE id IN (SELECT job_id FROM attempts WHERE id = ANY (?::uuid[]))
            ORDER BY id FOR NO KEY UPDATE""";
    /**
     * PENDING -> STARTING for a set of attempts in one statement, their jobs QUEUED -> RUNNING in the same one; per
     * attempt asked for: whether this statement started it, its status before the statement (null: no such
     * attempt), and whether it already carries the caller's token (the caller's own start, whose commit succeeded
     * while its acknowledgement was lost).
     */
    private static final String START_ALL_IF_PENDING = """
            WITH asked AS (
                SELECT * FROM unnest(?::uuid[], ?::bigint[], ?::bigint[], ?::uuid[])
                    AS t(id, soft_ms, abandon_ms, token)
            ), started AS (
                UPDATE attempts a SET status = 'STARTING', started_at = now(),
                                      soft_deadline = now() + asked.soft_ms * interval '1 millisecond',
                                      abandon_after = now() + asked.abandon_ms * interval '1 millisecond',
                                      start_token = asked.token
                FROM asked WHERE a.id = asked.id AND a.status = 'PENDING'
                RETURNING a.id, a.job_id
            ), running AS (
                UPDATE jobs SET status = 'RUNNING'
                WHERE id IN (SELECT job_id FROM started) AND status = 'QUEUED'
            )
            SELECT asked.id, started.id IS NOT NULL AS started, a.status,
                   coalesce(a.status = 'STARTING' AND a.start_token = asked.token, false) AS own
            FROM asked LEFT JOIN started ON started.id = asked.id LEFT JOIN attempts a ON a.id = asked.id""";
    /**
     * Moves the deadlines of STARTING attempts on, from now, each only while it is still its caller's own start: a
     * streamed call whose pieces keep flowing is neither resolvable by an operator nor taken for abandoned.
     */
    private static final String RENEW_OWN_STARTS = """
            UPDATE attempts a SET soft_deadline = now() + r.soft_ms * interval '1 millisecond',
                                  abandon_after = now() + r.abandon_ms * interval '1 millisecond'
            FROM unnest(?::uuid[], ?::uuid[], ?::bigint[], ?::bigint[]) AS r(id, token, soft_ms, abandon_ms)
            WHERE a.id = r.id AND a.status = 'STARTING' AND a.start_token = r.token""";
    private static final String SELECT_UNKNOWN_WITH_TOKEN =
            "SELECT 1 FROM attempts WHERE id = ? AND status = 'UNKNOWN' AND start_token = ?";
    private static final String MARK_ATTEMPT_UNKNOWN_IF_STARTING =
            "UPDATE attempts SET status = 'UNKNOWN', unknown_at = now() WHERE id = ? AND status = 'STARTING'";
    private static final String MARK_JOB_UNKNOWN = "UPDATE jobs SET status = 'UNKNOWN' WHERE id = ? AND status = 'RUNNING'";
    private static final String SELECT_ABANDONED_STARTING = """
            SELECT id, job_id, coalesce(abandon_after, soft_deadline) AS abandon_after FROM attempts
            WHERE status = 'STARTING' AND coalesce(abandon_after, soft_deadline) < now()
            ORDER BY coalesce(abandon_after, soft_deadline) LIMIT ?""";
    private static final String FAIL_ATTEMPT_IF_LIVE = """
            UPDATE attempts SET status = 'FAILED', finished_at = now(), error_code = ?, error_message = ?, retryable = ?,
                                offending_answer = ?
            WHERE id = ? AND (status IN ('STARTING', 'UNKNOWN') OR status = 'PENDING' AND ?)""";
    /** An operator may not end a call that is inside its soft deadline: it may still answer, and is paid for. */
    private static final String FAIL_ATTEMPT_IF_RESOLVABLE = """
            UPDATE attempts SET status = 'FAILED', finished_at = now(), error_code = ?, error_message = ?, retryable = ?,
                                offending_answer = ?
            WHERE id = ? AND (status = 'UNKNOWN' OR status = 'STARTING' AND soft_deadline <= now())""";
    private static final String CANCEL_ATTEMPT_IF_RESOLVABLE = """
            UPDATE attempts SET status = 'CANCELLED', finished_at = now(), error_code = 'cancelled', error_message = ?
            WHERE id = ? AND (status = 'UNKNOWN' OR status = 'STARTING' AND soft_deadline <= now())""";
    private static final String INSERT_OPERATOR_ACTION = """
            INSERT INTO operator_actions (job_id, attempt_id, actor, action, reason) VALUES (?, ?, ?, ?, ?)""";
    private static final String FAIL_JOB = """
            UPDATE jobs SET status = 'FAILED', version = version + 1, finished_at = now(), error_code = ?,
                            error_message = ?
            WHERE id = ? AND version = ?""";
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

    public LedgerStore(Database database) {
        this.database = database;
    }

    /** Creates the job with its first attempt and that attempt's command, or says why it did not. */
    public SubmitOutcome submit(NewJob newJob) {
        return database.inTransaction(connection -> JobIntake.submit(connection, List.of(newJob)).get(0));
    }

    /**
     * Submits many jobs (a poll's worth of Kafka records) in one transaction, with one statement per table
     * ({@link JobIntake}). Outcomes come back in the order given, each what the job would get if submitted alone.
     * When PostgreSQL refuses the batch, each job is tried in a transaction of its own, so one bad job cannot sink
     * the others: it comes back {@link SubmitOutcome.Refused} with the reason.
     */
    public List<SubmitOutcome> submitBatch(List<NewJob> jobs) {
        try {
            return database.inTransaction(connection -> JobIntake.submit(connection, jobs));
        } catch (RuntimeException batchFailed) {
            return jobs.stream().map(this::submitOrRefused).toList();
        }
    }

    /**
     * One job alone; {@link SubmitOutcome.Refused} when PostgreSQL rejects its data
     * ({@link DatabaseException#isDataRefusal}), rethrown when it is down.
     */
    private SubmitOutcome submitOrRefused(NewJob job) {
        try {
            return submit(job);
        } catch (DatabaseException e) {
            if (DatabaseException.isDataRefusal(e)) {
                return new SubmitOutcome.Refused("PostgreSQL refused to store the request: " + e.getMessage());
            }
            throw e;
        }
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
            Optional<Job> locked = LedgerSql.queryOne(connection, LOCK_JOB, LedgerRows::job, jobId);
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
            Optional<Attempt> created = insertAttempt(connection, job, provider, job.version() + 1, override);
            if (created.isEmpty()) {
                Attempt live = LedgerSql.queryOne(connection, SELECT_LIVE_ATTEMPT, LedgerRows::attempt, jobId)
                        .orElseThrow(() -> new IllegalStateException("live-attempt index refused, none is live"));
                return new NewAttemptOutcome.LiveAttemptExists(live.id(), live.status());
            }
            LedgerSql.updateExactlyOne(connection, BUMP_VERSION_FOR_NEW_ATTEMPT, "job version moved under lock",
                    jobId, job.version());
            return new NewAttemptOutcome.Created(created.get());
        });
    }

    /** PENDING -> STARTING before the provider is called; a redelivered command finds it started and stops. */
    public TransitionOutcome start(UUID attemptId, Duration softTimeout) {
        return start(attemptId, softTimeout, UUID.randomUUID());
    }

    /**
     * PENDING -> STARTING, written with {@code startToken}, the caller's name for this one start. Applied also when
     * the attempt is already STARTING with that same token: the caller's own start, whose commit succeeded while
     * its acknowledgement was lost; the caller makes the call it was going to make. Any other token finds it
     * started by someone else (NotApplied).
     */
    public TransitionOutcome start(UUID attemptId, Duration softTimeout, UUID startToken) {
        return start(attemptId, softTimeout, softTimeout, startToken);
    }

    /**
     * The same, with {@code abandonAfter}: how long after the start the sweeper may take the attempt's worker for
     * vanished and make it UNKNOWN ({@link #sweepOverdue}). The worker passes the provider's hard timeout plus a
     * grace, since it reports UNKNOWN itself at the soft deadline; the overloads without it use the soft timeout.
     */
    public TransitionOutcome start(UUID attemptId, Duration softTimeout, Duration abandonAfter, UUID startToken) {
        return startAll(List.of(new Start(attemptId, softTimeout, abandonAfter, startToken))).get(0);
    }

    /** One start asked of {@link #startAll}: the attempt, its deadlines from now, and the caller's token for it. */
    public record Start(UUID attemptId, Duration softTimeout, Duration abandonAfter, UUID token) {
    }

    /**
     * {@link #start} for a whole poll of attempt commands in one transaction: the jobs locked in id order (job rows
     * before attempts, as everywhere), then one statement for every PENDING -> STARTING and QUEUED -> RUNNING.
     * Outcomes come back in the order given, each what {@code start} would have answered alone.
     *
     * @throws IllegalArgumentException when an attempt is asked for twice: which token would win is not defined
     */
    public List<TransitionOutcome> startAll(List<Start> starts) {
        if (starts.isEmpty()) {
            return List.of();
        }
        UUID[] ids = new UUID[starts.size()];
        Long[] soft = new Long[starts.size()];
        Long[] abandon = new Long[starts.size()];
        UUID[] tokens = new UUID[starts.size()];
        java.util.Set<UUID> distinct = new java.util.HashSet<>();
        for (int i = 0; i < starts.size(); i++) {
            Start start = starts.get(i);
            if (!distinct.add(start.attemptId())) {
                throw new IllegalArgumentException("attempt " + start.attemptId() + " is asked to start twice");
            }
            ids[i] = start.attemptId();
            soft[i] = start.softTimeout().toMillis();
            abandon[i] = start.abandonAfter().toMillis();
            tokens[i] = start.token();
        }
        return database.inTransaction(connection -> {
            LedgerSql.queryList(connection, LOCK_JOBS_OF_ATTEMPTS, row -> row.getObject(1, UUID.class),
                    connection.createArrayOf("uuid", ids));
            java.util.Map<UUID, TransitionOutcome> byId = new java.util.HashMap<>();
            LedgerSql.queryList(connection, START_ALL_IF_PENDING, row -> {
                UUID id = row.getObject("id", UUID.class);
                TransitionOutcome outcome = row.getBoolean("started") || row.getBoolean("own")
                        ? TransitionOutcome.applied() : new TransitionOutcome.NotApplied(row.getString("status"));
                byId.put(id, outcome);
                return id;
            }, connection.createArrayOf("uuid", ids), connection.createArrayOf("bigint", soft),
                    connection.createArrayOf("bigint", abandon), connection.createArrayOf("uuid", tokens));
            return starts.stream().map(start -> byId.get(start.attemptId())).toList();
        });
    }

    /**
     * Moves the soft deadline and the abandon time of a set of STARTING attempts on, each from now, while each is still
     * the start its token names (a streamed call whose provider keeps speaking); the jobs are locked first, in id order,
     * as everywhere. Answers how many were moved: one that ended or was made UNKNOWN meanwhile is left as it is.
     */
    public int renewStarts(List<Start> renewals) {
        if (renewals.isEmpty()) {
            return 0;
        }
        List<Start> sorted = renewals.stream().sorted(java.util.Comparator.comparing(Start::attemptId)).toList();
        UUID[] ids = sorted.stream().map(Start::attemptId).toArray(UUID[]::new);
        UUID[] tokens = sorted.stream().map(Start::token).toArray(UUID[]::new);
        Long[] soft = sorted.stream().map(r -> r.softTimeout().toMillis()).toArray(Long[]::new);
        Long[] abandon = sorted.stream().map(r -> r.abandonAfter().toMillis()).toArray(Long[]::new);
        return database.inTransaction(connection -> {
            LedgerSql.queryList(connection, LOCK_JOBS_OF_ATTEMPTS, row -> row.getObject(1, UUID.class),
                    connection.createArrayOf("uuid", ids));
            return LedgerSql.update(connection, RENEW_OWN_STARTS, connection.createArrayOf("uuid", ids),
                    connection.createArrayOf("uuid", tokens), connection.createArrayOf("bigint", soft),
                    connection.createArrayOf("bigint", abandon));
        });
    }

    /**
     * Whether the attempt is UNKNOWN and was started with {@code startToken}: made UNKNOWN (by the sweeper) after a
     * start whose acknowledgement its worker never heard, so the worker knows its request never left.
     */
    public boolean isUnknownWithToken(UUID attemptId, UUID startToken) {
        return database.inTransaction(connection -> LedgerSql.queryOne(connection, SELECT_UNKNOWN_WITH_TOKEN,
                row -> true, attemptId, startToken).isPresent());
    }

    /** STARTING -> UNKNOWN: the request left and no answer came in time. The job shows UNKNOWN, never FAILED. */
    public TransitionOutcome markUnknown(UUID attemptId) {
        return database.inTransaction(connection -> {
            Optional<Attempt> attempt = LedgerSql.queryOne(connection, SELECT_ATTEMPT, LedgerRows::attempt, attemptId);
            if (attempt.isEmpty()) {
                return new TransitionOutcome.NotApplied(null);
            }
            lockJob(connection, attempt.get().jobId());
            if (LedgerSql.update(connection, MARK_ATTEMPT_UNKNOWN_IF_STARTING, attemptId) == 0) {
                return new TransitionOutcome.NotApplied(currentStatus(connection, attemptId));
            }
            LedgerSql.update(connection, MARK_JOB_UNKNOWN, attempt.get().jobId());
            return TransitionOutcome.applied();
        });
    }

    /**
     * Moves STARTING attempts whose worker counts as vanished (past their {@code abandon_after}: the hard timeout
     * plus a grace after the start, as the worker wrote it) to UNKNOWN: a worker that lives reports UNKNOWN itself
     * at the soft deadline, so an attempt merely waiting for the reconciler stays STARTING. Safe to run from many
     * instances at once: each move is the conditional transition of {@link #markUnknown}. Never FAILED, never PENDING.
     */
    public int sweepOverdue(int limit) {
        return sweep(overdue(limit));
    }

    /** A STARTING attempt past its {@code abandon_after} (the soft deadline when it has none), and its job. */
    public record Overdue(UUID attemptId, UUID jobId, Instant abandonAfter) {
    }

    /**
     * The STARTING attempts past their {@code abandon_after}, longest overdue first: what {@link #sweepOverdue}
     * sweeps, for a caller that first checks that no outcome of theirs can still be on its way (the reconciler's
     * sweeper asks whether its consumption of attempt-completions has passed their abandon_after).
     */
    public List<Overdue> overdue(int limit) {
        return database.inTransaction(connection -> LedgerSql.queryList(connection, SELECT_ABANDONED_STARTING,
                row -> new Overdue(row.getObject("id", UUID.class), row.getObject("job_id", UUID.class),
                        row.getTimestamp("abandon_after").toInstant()), limit));
    }

    /** Makes each of these attempts UNKNOWN if it is still STARTING; how many moved. */
    public int sweep(List<Overdue> attempts) {
        int moved = 0;
        for (Overdue attempt : attempts) {
            if (markUnknown(attempt.attemptId()) instanceof TransitionOutcome.Applied) {
                moved++;
            }
        }
        return moved;
    }

    /**
     * A provider answered with a result. The compare-and-swap on the job's version decides: won, lost (the result is
     * discarded, never merged, and a race-audit event is queued once), or already applied (a redelivery). A
     * redelivery that carries a different result than the one recorded for that attempt is rejected.
     */
    public CompletionOutcome complete(UUID jobId, UUID attemptId, JsonNode result, String providerRequestId) {
        return complete(jobId, attemptId, null, result, providerRequestId);
    }

    /**
     * The same, for a completion that names the provider it ran on: one that names another provider than the
     * attempt's is rejected by the compare-and-swap's own statement (no read before it). Null checks no provider.
     */
    public CompletionOutcome complete(UUID jobId, UUID attemptId, String provider, JsonNode result,
                                      String providerRequestId) {
        AttemptAnswer answer = new AttemptAnswer(jobId, attemptId, provider, result, providerRequestId);
        return database.inTransaction(connection -> CompletionBatch.complete(connection, List.of(answer)).get(0));
    }

    /**
     * Applies a poll's successful answers with one compare-and-swap statement per set ({@link CompletionBatch}):
     * outcomes come back in the order given, each what {@link #complete} would answer for it alone, in this order.
     * Answers for the same job go in successive sets, each its own transaction, so a job's answers are applied in
     * the order they came. When PostgreSQL refuses a set for its data, each answer of that set is tried in a
     * transaction of its own, so one bad answer cannot sink the others: it comes back
     * {@link CompletionOutcome.Rejected} with PostgreSQL's reason.
     */
    public List<CompletionOutcome> completeAll(List<AttemptAnswer> answers) {
        CompletionOutcome[] outcomes = new CompletionOutcome[answers.size()];
        for (List<Integer> set : JobRounds.of(answers, AttemptAnswer::jobId)) {
            List<AttemptAnswer> members = set.stream().map(answers::get).toList();
            List<CompletionOutcome> applied;
            try {
                applied = database.inTransaction(connection -> CompletionBatch.complete(connection, members));
            } catch (DatabaseException batchFailed) {
                if (!DatabaseException.isDataRefusal(batchFailed)) {
                    throw batchFailed;
                }
                applied = members.stream().map(this::completeOrRefused).toList();
            }
            for (int k = 0; k < set.size(); k++) {
                outcomes[set.get(k)] = applied.get(k);
            }
        }
        return List.of(outcomes);
    }

    private CompletionOutcome completeOrRefused(AttemptAnswer answer) {
        try {
            return database.inTransaction(connection -> CompletionBatch.complete(connection, List.of(answer)).get(0));
        } catch (DatabaseException e) {
            if (DatabaseException.isDataRefusal(e)) {
                return new CompletionOutcome.Rejected(answer.attemptId(),
                        "PostgreSQL refused to store it: " + e.getMessage());
            }
            throw e;
        }
    }

    /**
     * The attempt failed (the provider said so, or an operator resolved it FAILED). In the same transaction:
     * failover to the next provider in the job's chain that the gate allows, or the job FAILED.
     */
    public FailureOutcome fail(UUID attemptId, AttemptFailure failure, ProviderGate gate) {
        return fail(attemptId, failure, gate, null);
    }

    /**
     * An operator resolves a STARTING or UNKNOWN attempt FAILED: the same as {@link #fail}, and the action recorded
     * in the same transaction. Refused (Rejected, naming the soft deadline) while the attempt is STARTING inside its
     * soft deadline: its call may still answer, and failing over then would pay for a second call.
     */
    public FailureOutcome resolveFailed(UUID attemptId, OperatorAction action, ProviderGate gate) {
        return fail(attemptId, new AttemptFailure("resolved_failed", "resolved by " + action.actor() + ": "
                + action.reason(), false), gate, action);
    }

    private FailureOutcome fail(UUID attemptId, AttemptFailure failure, ProviderGate gate, OperatorAction action) {
        // The gate is asked before the transaction: it reads other tables (certifications) and must not hold a
        // second pooled connection while this one waits on the job's lock. A job's provider chain never changes.
        Optional<Attempt> before = attempt(attemptId);
        if (before.isEmpty()) {
            return new FailureOutcome.Rejected(attemptId, "no such attempt");
        }
        Job unlocked = job(before.get().jobId()).orElseThrow();
        java.util.Map<String, Optional<String>> eligibility = new java.util.HashMap<>();
        for (String provider : unlocked.providerChain()) {
            eligibility.put(provider, gate.whyNot(unlocked, provider));
        }
        ProviderGate decided = new ProviderGate() {
            @Override
            public boolean mayFailOverTo(Job job, String provider) {
                return whyNot(job, provider).isEmpty();
            }

            @Override
            public RetryPolicy retryPolicy(String provider) {
                return gate.retryPolicy(provider);
            }

            @Override
            public Optional<String> whyNot(Job job, String provider) {
                return eligibility.getOrDefault(provider, Optional.of(provider + " is not in the job's chain"));
            }
        };
        return database.inTransaction(connection -> {
            Attempt attempt = before.get();
            Job job = lockJob(connection, attempt.jobId());
            int failed = action == null
                    ? LedgerSql.update(connection, FAIL_ATTEMPT_IF_LIVE, failure.code(), failure.message(),
                            failure.retryable(), failure.offendingAnswer(), attemptId, failure.unstarted())
                    : LedgerSql.update(connection, FAIL_ATTEMPT_IF_RESOLVABLE, failure.code(), failure.message(),
                            failure.retryable(), failure.offendingAnswer(), attemptId);
            if (failed == 0) {
                Attempt now = LedgerSql.queryOne(connection, SELECT_ATTEMPT, LedgerRows::attempt, attemptId)
                        .orElseThrow();
                if (action == null && now.status() == AttemptStatus.FAILED) {
                    return new FailureOutcome.AlreadyApplied(attemptId);
                }
                return new FailureOutcome.Rejected(attemptId, action == null ? "attempt is " + now.status()
                        : notResolvable(now));
            }
            if (action != null) {
                record(connection, attempt, action);
            }
            Optional<FailureOutcome> retry = action == null && failure.retryable()
                    ? retry(connection, job, attempt, failure, decided.retryPolicy(attempt.provider()))
                    : Optional.empty();
            if (retry.isPresent()) {
                return retry.get();
            }
            List<String> skipped = new ArrayList<>();
            Optional<String> next = failure.allowsFailover() ? nextProvider(job, attempt.provider(), decided, skipped)
                    : Optional.empty();
            if (next.isPresent()) {
                Attempt created = insertAttempt(connection, job, next.get(), job.version() + 1, null)
                        .orElseThrow(() -> new IllegalStateException("failover found a live attempt on " + job.id()));
                LedgerSql.updateExactlyOne(connection, BUMP_VERSION_FOR_NEW_ATTEMPT, "job version moved under lock",
                        job.id(), job.version());
                return new FailureOutcome.FailedOver(attemptId, created);
            }
            String left = !failure.allowsFailover() ? "no fallback is tried for it (another provider would most"
                    + " likely be paid for an answer as large)"
                    : skipped.isEmpty() ? "no fallback is left" : "no fallback may take it (" + String.join("; ",
                    skipped) + ")";
            LedgerSql.updateExactlyOne(connection, FAIL_JOB, "job version moved under lock", failure.code(),
                    "attempt " + attempt.number() + " on " + attempt.provider() + " failed (" + failure.message()
                            + ") and " + left, job.id(), job.version());
            enqueueJobResult(connection, job.id());
            return new FailureOutcome.JobFailed(job.id(), attemptId);
        });
    }

    /**
     * A definite refusal retried on the same provider, when its policy allows another attempt there: the new attempt
     * waits out the backoff ({@code not_before}, and its command is held in the outbox until then). Empty when the
     * provider has had its attempts; the caller then fails over.
     */
    private static Optional<FailureOutcome> retry(Connection connection, Job job, Attempt failed,
                                                  AttemptFailure failure, RetryPolicy policy)
            throws SQLException {
        int tries = LedgerSql.queryOne(connection, COUNT_ATTEMPTS_ON_PROVIDER, row -> row.getInt(1), job.id(),
                failed.provider()).orElse(0);
        if (!policy.allowsAnother(tries)) {
            return Optional.empty();
        }
        Duration backoff = policy.backoff(tries, failure.retryAfter(),
                java.util.concurrent.ThreadLocalRandom.current());
        Attempt created = insertAttempt(connection, job, failed.provider(), job.version() + 1, null, backoff)
                .orElseThrow(() -> new IllegalStateException("a retry found a live attempt on " + job.id()));
        LedgerSql.updateExactlyOne(connection, BUMP_VERSION_FOR_NEW_ATTEMPT, "job version moved under lock",
                job.id(), job.version());
        return Optional.of(new FailureOutcome.RetryScheduled(failed.id(), created, backoff));
    }

    /**
     * An operator resolves a STARTING or UNKNOWN attempt CANCELLED (the owner decides what next), the action recorded
     * in the same transaction; refused like {@link #resolveFailed} inside the soft deadline (NotApplied with the
     * attempt's status: STARTING then means inside its soft deadline).
     */
    public TransitionOutcome resolveCancelled(UUID attemptId, OperatorAction action) {
        String message = "resolved by " + action.actor() + ": " + action.reason();
        return database.inTransaction(connection -> {
            Optional<Attempt> attempt = LedgerSql.queryOne(connection, SELECT_ATTEMPT, LedgerRows::attempt, attemptId);
            if (attempt.isEmpty()) {
                return new TransitionOutcome.NotApplied(null);
            }
            Job job = lockJob(connection, attempt.get().jobId());
            if (LedgerSql.update(connection, CANCEL_ATTEMPT_IF_RESOLVABLE, message, attemptId) == 0) {
                return new TransitionOutcome.NotApplied(currentStatus(connection, attemptId));
            }
            LedgerSql.updateExactlyOne(connection, BUMP_VERSION_AWAITING_OWNER, "job version moved under lock",
                    job.id(), job.version());
            record(connection, attempt.get(), action);
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

    private static void record(java.sql.Connection connection, Attempt attempt, OperatorAction action)
            throws java.sql.SQLException {
        LedgerSql.update(connection, INSERT_OPERATOR_ACTION, attempt.jobId(), attempt.id(), action.actor(),
                action.action(), action.reason());
    }

    /** Why an operator may not resolve {@code attempt} now: its status, or its soft deadline while it runs. */
    private static String notResolvable(Attempt attempt) {
        if (attempt.status() == AttemptStatus.STARTING && attempt.softDeadline() != null) {
            return "STARTING inside its soft deadline (" + attempt.softDeadline() + "): its call may still answer";
        }
        return attempt.status().name();
    }

    /** Cancels the job and its live attempt; a late result of any attempt is then discarded and audited. */
    public TransitionOutcome cancelJob(UUID jobId, String reason) {
        return database.inTransaction(connection -> {
            if (LedgerSql.update(connection, CANCEL_JOB_IF_UNFINISHED, reason, jobId) == 0) {
                Optional<Job> job = LedgerSql.queryOne(connection, SELECT_JOB, LedgerRows::job, jobId);
                return new TransitionOutcome.NotApplied(job.map(j -> j.status().name()).orElse(null));
            }
            LedgerSql.update(connection, CANCEL_LIVE_ATTEMPTS_OF_JOB, reason, jobId);
            enqueueJobResult(connection, jobId);
            return TransitionOutcome.applied();
        });
    }

    /** The job, live or archived ({@link KeyRetention}). */
    public Optional<Job> job(UUID jobId) {
        return database.inTransaction(connection -> LedgerSql.queryOne(connection, SELECT_JOB, LedgerRows::job, jobId)
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
        return database.inTransaction(connection -> LedgerSql.queryOne(connection, "SELECT count(*) FROM jobs",
                row -> row.getLong(1)).orElseThrow());
    }

    public Optional<Attempt> attempt(UUID attemptId) {
        return database.inTransaction(connection ->
                LedgerSql.queryOne(connection, SELECT_ATTEMPT, LedgerRows::attempt, attemptId));
    }

    /** A job's attempts, live or archived. */
    public List<Attempt> attempts(UUID jobId) {
        return database.inTransaction(connection -> {
            List<Attempt> live = LedgerSql.queryList(connection, SELECT_ATTEMPTS_OF_JOB, LedgerRows::attempt, jobId);
            return live.isEmpty() ? LedgerSql.queryList(connection, SELECT_ARCHIVED_ATTEMPTS_OF_JOB,
                    LedgerRows::attempt, jobId) : live;
        });
    }

    private static Optional<Attempt> insertAttempt(Connection connection, Job job, String provider, long jobVersion,
                                                   String override) throws SQLException {
        return insertAttempt(connection, job, provider, jobVersion, override, null);
    }

    /** A new attempt and its command, which waits {@code notBefore} (null: none) in the outbox before it is sent. */
    private static Optional<Attempt> insertAttempt(Connection connection, Job job, String provider, long jobVersion,
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

    /** The next provider after the failed one that the gate allows; the ones it refused go to {@code skipped}. */
    private static Optional<String> nextProvider(Job job, String failedProvider, ProviderGate gate,
                                                 List<String> skipped) {
        List<String> chain = job.providerChain();
        for (String candidate : chain.subList(chain.indexOf(failedProvider) + 1, chain.size())) {
            Optional<String> whyNot = gate.whyNot(job, candidate);
            if (whyNot.isEmpty()) {
                return Optional.of(candidate);
            }
            skipped.add(whyNot.get());
        }
        return Optional.empty();
    }

    private void enqueueJobResult(Connection connection, UUID jobId) throws SQLException {
        Job job = LedgerSql.queryOne(connection, SELECT_JOB, LedgerRows::job, jobId).orElseThrow();
        List<Attempt> attempts = LedgerSql.queryList(connection, SELECT_ATTEMPTS_OF_JOB, LedgerRows::attempt, jobId);
        OutboxStore.enqueue(connection, Topics.JOB_RESULTS, jobId.toString(), jobId.toString(),
                LedgerEvents.jobResult(job, attempts).toJson(), JobResult.VERSION);
    }

    private static Job lockJob(Connection connection, UUID jobId) throws SQLException {
        return LedgerSql.queryOne(connection, LOCK_JOB, LedgerRows::job, jobId)
                .orElseThrow(() -> new IllegalStateException("attempt references missing job " + jobId));
    }

    private static String currentStatus(Connection connection, UUID attemptId) throws SQLException {
        return LedgerSql.queryOne(connection, SELECT_ATTEMPT, LedgerRows::attempt, attemptId)
                .map(a -> a.status().name()).orElse(null);
    }
}
