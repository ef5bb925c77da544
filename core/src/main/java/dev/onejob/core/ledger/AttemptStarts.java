package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.LedgerRows.ATTEMPT_COLUMNS;

import dev.onejob.core.db.Database;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Moves attempts through their call: PENDING -> STARTING before the provider is called (their jobs QUEUED ->
 * RUNNING), the deadlines of a streamed call moved on while it speaks, and STARTING -> UNKNOWN when the request left
 * and no answer came in time, by the worker or by the sweeper for a vanished worker. Jobs are locked before their
 * attempts, as everywhere ({@link LedgerSteps}); every move is conditional, and a move someone else made first comes
 * back NotApplied.
 */
public final class AttemptStarts {
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

    private final Database database;

    public AttemptStarts(Database database) {
        this.database = database;
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
        Set<UUID> distinct = new HashSet<>();
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
            Map<UUID, TransitionOutcome> byId = new HashMap<>();
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
        List<Start> sorted = renewals.stream().sorted(Comparator.comparing(Start::attemptId)).toList();
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
            Optional<Attempt> attempt = LedgerSql.queryOne(connection, LedgerSteps.SELECT_ATTEMPT, LedgerRows::attempt,
                    attemptId);
            if (attempt.isEmpty()) {
                return new TransitionOutcome.NotApplied(null);
            }
            LedgerSteps.lockJob(connection, attempt.get().jobId());
            if (LedgerSql.update(connection, MARK_ATTEMPT_UNKNOWN_IF_STARTING, attemptId) == 0) {
                return new TransitionOutcome.NotApplied(LedgerSteps.currentStatus(connection, attemptId));
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
}
