package dev.onejob.core.ledger;

import static dev.onejob.core.ledger.LedgerRows.ATTEMPT_COLUMNS;
import static dev.onejob.core.ledger.LedgerRows.JOB_COLUMNS;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.events.JobResult;
import dev.onejob.core.events.RaceAudit;
import dev.onejob.core.json.CanonicalJson;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.outbox.OutboxStore;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Applies a set of successful answers, at most one per job, inside the caller's transaction: one compare-and-swap
 * statement for the whole set, whatever its size. The statement checks each answer's claims against its attempt
 * (it exists, belongs to the job, ran on the provider named, was started, with the start token the answer carries),
 * swaps the job's version for the winners
 * ({@code WHERE version = attempt's job_version AND completed_by IS NULL}), marks the winning attempts SUCCEEDED in
 * the same statement, and answers per answer whether it won: no read before the write. The winners' job-results rows
 * follow in one read and one multi-row insert. An answer that did not win is a lost race or a redelivery, told apart
 * under its job's lock ({@link #recordLoss}); those are the exception, one at a time.
 *
 * <p>Owned by {@link AttemptCompletions}, which splits a poll into such sets, owns the transactions and the fallback
 * when PostgreSQL refuses a set.
 */
final class CompletionBatch {
    /**
     * Per answer, in the order given: what the ledger holds for its attempt (null when none), whether it won the
     * compare-and-swap, and whether its attempt was marked SUCCEEDED by the same statement (always, when it won).
     */
    static final String COMPLETE_ALL_IF_UNCLAIMED = """
            WITH answer AS (
                SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::uuid[], ?::text[])
                    WITH ORDINALITY AS t(attempt_id, job_id, provider, result, provider_request_id, start_token,
                                         finish_reason, n)
            ), claimed AS (
                SELECT answer.*, a.job_id AS attempt_job_id, a.provider AS attempt_provider,
                       a.status AS attempt_status, a.job_version,
                       answer.start_token IS NULL OR answer.start_token = a.start_token AS own_start
                FROM answer LEFT JOIN attempts a ON a.id = answer.attempt_id
            ), won AS (
                UPDATE jobs j SET status = 'SUCCEEDED', version = j.version + 1, completed_by = c.attempt_id,
                                  result = c.result::jsonb, finished_at = now()
                FROM claimed c
                WHERE j.id = c.job_id AND c.attempt_job_id = c.job_id
                  AND (c.provider IS NULL OR c.attempt_provider = c.provider) AND c.attempt_status <> 'PENDING'
                  AND c.own_start AND j.version = c.job_version AND j.completed_by IS NULL
                RETURNING c.attempt_id
            ), marked AS (
                UPDATE attempts a SET status = 'SUCCEEDED', finished_at = now(),
                                      provider_request_id = c.provider_request_id, finish_reason = c.finish_reason
                FROM won JOIN claimed c ON c.attempt_id = won.attempt_id
                WHERE a.id = won.attempt_id AND a.status IN ('STARTING', 'UNKNOWN')
                RETURNING a.id
            )
            SELECT c.n, c.attempt_job_id, c.attempt_provider, c.attempt_status, c.own_start,
                   won.attempt_id IS NOT NULL AS won, marked.id IS NOT NULL AS marked
            FROM claimed c LEFT JOIN won ON won.attempt_id = c.attempt_id LEFT JOIN marked ON marked.id = c.attempt_id
            ORDER BY c.n""";
    private static final String SELECT_JOBS = "SELECT " + JOB_COLUMNS + " FROM jobs WHERE id = ANY (?::uuid[])";
    private static final String SELECT_ATTEMPTS_OF_JOBS = "SELECT " + ATTEMPT_COLUMNS
            + " FROM attempts WHERE job_id = ANY (?::uuid[]) ORDER BY job_id, number";
    private static final String LOCK_JOB = "SELECT " + JOB_COLUMNS + " FROM jobs WHERE id = ? FOR NO KEY UPDATE";
    private static final String SELECT_ATTEMPT = "SELECT " + ATTEMPT_COLUMNS + " FROM attempts WHERE id = ?";
    private static final String DISCARD_ATTEMPT_RESULT = """
            UPDATE attempts SET status = 'DISCARDED', lost_reason = ?, discarded_result_sha256 = ?,
                                discarded_result_summary = ?,
                                provider_request_id = coalesce(provider_request_id, ?),
                                finished_at = coalesce(finished_at, now())
            WHERE id = ? AND status IN ('STARTING', 'UNKNOWN', 'CANCELLED', 'FAILED')""";
    private static final int SUMMARY_LIMIT = 200;

    private CompletionBatch() {
    }

    /**
     * The outcome of each answer, in the order given.
     *
     * @throws IllegalArgumentException when two answers name the same job (the caller splits such a poll)
     * @throws IllegalStateException when the ledger's rules were broken (a version matched a dead attempt)
     */
    static List<CompletionOutcome> complete(Connection connection, List<AttemptAnswer> answers) throws SQLException {
        int n = answers.size();
        UUID[] attemptIds = new UUID[n];
        UUID[] jobIds = new UUID[n];
        String[] providers = new String[n];
        String[] results = new String[n];
        String[] requestIds = new String[n];
        UUID[] startTokens = new UUID[n];
        String[] finishReasons = new String[n];
        for (int i = 0; i < n; i++) {
            AttemptAnswer answer = answers.get(i);
            attemptIds[i] = answer.attemptId();
            jobIds[i] = answer.jobId();
            providers[i] = answer.provider();
            results[i] = Json.write(answer.result());
            requestIds[i] = answer.providerRequestId();
            startTokens[i] = answer.startToken();
            finishReasons[i] = answer.finishReason() == null ? null : answer.finishReason().wire();
        }
        if (Set.of(jobIds).size() != n) {
            throw new IllegalArgumentException("one set of answers names a job twice; apply them in turn");
        }
        List<Swap> swaps = LedgerSql.queryList(connection, COMPLETE_ALL_IF_UNCLAIMED, Swap::of,
                connection.createArrayOf("uuid", attemptIds), connection.createArrayOf("uuid", jobIds),
                connection.createArrayOf("text", providers), connection.createArrayOf("text", results),
                connection.createArrayOf("text", requestIds), connection.createArrayOf("uuid", startTokens),
                connection.createArrayOf("text", finishReasons));
        CompletionOutcome[] outcomes = new CompletionOutcome[n];
        List<UUID> winners = new ArrayList<>();
        for (Swap swap : swaps) {
            int i = swap.index();
            AttemptAnswer answer = answers.get(i);
            String refusal = swap.refusal(answer);
            if (refusal != null) {
                outcomes[i] = new CompletionOutcome.Rejected(answer.attemptId(), refusal);
            } else if (swap.won()) {
                if (!swap.marked()) {
                    throw new IllegalStateException("the version of job " + answer.jobId() + " matched but attempt "
                            + answer.attemptId() + " was not live");
                }
                outcomes[i] = new CompletionOutcome.Won(answer.jobId(), answer.attemptId());
                winners.add(answer.jobId());
            } else {
                outcomes[i] = recordLoss(connection, answer);
            }
        }
        enqueueJobResults(connection, winners);
        return List.of(outcomes);
    }

    /** One row of the compare-and-swap's answer. */
    private record Swap(int index, UUID attemptJobId, String attemptProvider, AttemptStatus attemptStatus,
                        boolean ownStart, boolean won, boolean marked) {
        static Swap of(ResultSet row) throws SQLException {
            String status = row.getString("attempt_status");
            return new Swap(row.getInt("n") - 1, row.getObject("attempt_job_id", UUID.class),
                    row.getString("attempt_provider"), status == null ? null : AttemptStatus.valueOf(status),
                    row.getBoolean("own_start"), row.getBoolean("won"), row.getBoolean("marked"));
        }

        /** Why the answer's claims do not hold, in the statement's own order of checks; null when they hold. */
        String refusal(AttemptAnswer answer) {
            if (attemptJobId == null) {
                return "no attempt " + answer.attemptId() + " in the ledger";
            }
            if (!attemptJobId.equals(answer.jobId())) {
                return "attempt " + answer.attemptId() + " belongs to job " + attemptJobId + ", not " + answer.jobId();
            }
            if (answer.provider() != null && !attemptProvider.equals(answer.provider())) {
                return "attempt " + answer.attemptId() + " ran on " + attemptProvider + ", not " + answer.provider();
            }
            if (attemptStatus == AttemptStatus.PENDING) {
                return "attempt was never started";
            }
            if (!ownStart) {
                return "attempt " + answer.attemptId() + " was not started with the start token this answer carries";
            }
            return null;
        }
    }

    /** The winners' job-results events, read after the swap and queued with one statement. */
    private static void enqueueJobResults(Connection connection, List<UUID> jobIds) throws SQLException {
        if (jobIds.isEmpty()) {
            return;
        }
        Array ids = connection.createArrayOf("uuid", jobIds.toArray());
        Map<UUID, List<Attempt>> attempts = new HashMap<>();
        for (Attempt attempt : LedgerSql.queryList(connection, SELECT_ATTEMPTS_OF_JOBS, LedgerRows::attempt, ids)) {
            attempts.computeIfAbsent(attempt.jobId(), id -> new ArrayList<>()).add(attempt);
        }
        List<OutboxStore.NewEvent> events = new ArrayList<>(jobIds.size());
        for (Job job : LedgerSql.queryList(connection, SELECT_JOBS, LedgerRows::job, ids)) {
            events.add(new OutboxStore.NewEvent(job.id().toString(), job.id().toString(),
                    LedgerEvents.jobResult(job, attempts.get(job.id())).toJson(), JobResult.VERSION));
        }
        OutboxStore.enqueueAll(connection, Topics.JOB_RESULTS, events);
    }

    /**
     * An answer that did not win, under its job's lock: a redelivery of the winner's (already applied, or rejected
     * when its result differs), a redelivery of a discarded one, or a race lost now, whose result is discarded,
     * never merged, with one race-audit event queued.
     */
    private static CompletionOutcome recordLoss(Connection connection, AttemptAnswer answer) throws SQLException {
        UUID jobId = answer.jobId();
        UUID attemptId = answer.attemptId();
        String resultSha256 = CanonicalJson.fingerprint(answer.result());
        Job job = LedgerSql.queryOne(connection, LOCK_JOB, LedgerRows::job, jobId)
                .orElseThrow(() -> new IllegalStateException("attempt references missing job " + jobId));
        if (attemptId.equals(job.completedBy())) {
            if (!CanonicalJson.fingerprint(job.result()).equals(resultSha256)) {
                return new CompletionOutcome.Rejected(attemptId, "a second completion of the winning attempt carries "
                        + "a different result; the first one stands");
            }
            return new CompletionOutcome.AlreadyApplied(jobId, attemptId);
        }
        Attempt loser = LedgerSql.queryOne(connection, SELECT_ATTEMPT, LedgerRows::attempt, attemptId).orElseThrow();
        if (loser.status() == AttemptStatus.DISCARDED) {
            if (!resultSha256.equals(loser.discardedResultSha256())) {
                return new CompletionOutcome.Rejected(attemptId, "a second completion of a discarded attempt carries "
                        + "a different result than the one discarded");
            }
            return new CompletionOutcome.Lost(jobId, attemptId, job.completedBy(), loser.lostReason(), false);
        }
        LossReason reason = switch (loser.status()) {
            case CANCELLED -> job.status() == JobStatus.CANCELLED ? LossReason.JOB_CANCELLED
                    : LossReason.ATTEMPT_CANCELLED;
            case FAILED -> LossReason.ATTEMPT_FAILED;
            default -> LossReason.LOST_CAS;
        };
        LedgerSql.updateExactlyOne(connection, DISCARD_ATTEMPT_RESULT, "attempt " + attemptId
                        + " cannot be discarded from " + loser.status(), reason.wireName(), resultSha256,
                discardedSummary(answer.result()), answer.providerRequestId(), attemptId);
        Attempt discarded = LedgerSql.queryOne(connection, SELECT_ATTEMPT, LedgerRows::attempt, attemptId)
                .orElseThrow();
        Attempt winner = job.completedBy() == null ? null
                : LedgerSql.queryOne(connection, SELECT_ATTEMPT, LedgerRows::attempt, job.completedBy()).orElseThrow();
        OutboxStore.enqueue(connection, Topics.RACE_AUDIT, attemptId.toString(), jobId.toString(),
                LedgerEvents.raceAudit(job, winner, discarded, reason, resultSha256, Instant.now()).toJson(),
                RaceAudit.VERSION);
        return new CompletionOutcome.Lost(jobId, attemptId, job.completedBy(), reason, true);
    }

    /** The discarded answer in brief: its first characters as canonical JSON, and its size when cut. */
    static String discardedSummary(JsonNode result) {
        String text = CanonicalJson.canonicalize(result);
        if (text.length() <= SUMMARY_LIMIT) {
            return text;
        }
        int cut = Character.isHighSurrogate(text.charAt(SUMMARY_LIMIT - 1)) ? SUMMARY_LIMIT - 1 : SUMMARY_LIMIT;
        return text.substring(0, cut) + "... (" + text.getBytes(StandardCharsets.UTF_8).length + " bytes)";
    }
}
