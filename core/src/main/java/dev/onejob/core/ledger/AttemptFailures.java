package dev.onejob.core.ledger;

import dev.onejob.core.config.RetryPolicy;
import dev.onejob.core.db.Database;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ends an attempt FAILED (the provider said so, or an operator resolved it) and decides in the same transaction what
 * follows: a retry on the same provider after its backoff, a failover to the next provider in the job's chain that
 * the gate allows, or the job FAILED with its result queued. Row counts are the answers: an attempt that already
 * ended comes back AlreadyApplied or Rejected, never an exception.
 */
public final class AttemptFailures {
    private static final String COUNT_ATTEMPTS_ON_PROVIDER =
            "SELECT count(*) FROM attempts WHERE job_id = ? AND provider = ?";
    private static final String FAIL_ATTEMPT_IF_LIVE = """
            UPDATE attempts SET status = 'FAILED', finished_at = now(), error_code = ?, error_message = ?, retryable = ?,
                                offending_answer = ?, request_sent = NOT ?
            WHERE id = ? AND (status IN ('STARTING', 'UNKNOWN') OR status = 'PENDING' AND ?)""";
    /** An operator may not end a call that is inside its soft deadline: it may still answer, and is paid for. */
    private static final String FAIL_ATTEMPT_IF_RESOLVABLE = """
            UPDATE attempts SET status = 'FAILED', finished_at = now(), error_code = ?, error_message = ?, retryable = ?,
                                offending_answer = ?
            WHERE id = ? AND (status = 'UNKNOWN' OR status = 'STARTING' AND soft_deadline <= now())""";
    private static final String FAIL_JOB = """
            UPDATE jobs SET status = 'FAILED', version = version + 1, finished_at = now(), error_code = ?,
                            error_message = ?
            WHERE id = ? AND version = ?""";

    private final Database database;
    private final JobLookups lookups;

    public AttemptFailures(Database database) {
        this.database = database;
        this.lookups = new JobLookups(database);
    }

    /**
     * The attempt failed (the provider said so, or an operator resolved it FAILED). In the same transaction:
     * failover to the next provider in the job's chain that the gate allows, or the job FAILED.
     */
    public FailureOutcome fail(UUID attemptId, AttemptFailure failure, ProviderGate gate) {
        return fail(attemptId, failure, gate, null);
    }

    /**
     * {@link #fail}, or with {@code action} (not null) an operator's resolution: only a resolvable attempt ends
     * ({@link JobInterventions#resolveFailed}), the action recorded in the same transaction, and no retry.
     */
    FailureOutcome fail(UUID attemptId, AttemptFailure failure, ProviderGate gate, OperatorAction action) {
        // The gate is asked before the transaction: it reads other tables (certifications) and must not hold a
        // second pooled connection while this one waits on the job's lock. A job's provider chain never changes.
        Optional<Attempt> before = lookups.attempt(attemptId);
        if (before.isEmpty()) {
            return new FailureOutcome.Rejected(attemptId, "no such attempt");
        }
        ProviderGate decided = decidedBefore(gate, lookups.job(before.get().jobId()).orElseThrow());
        return database.inTransaction(connection -> {
            Attempt attempt = before.get();
            Job job = LedgerSteps.lockJob(connection, attempt.jobId());
            int failed = action == null
                    ? LedgerSql.update(connection, FAIL_ATTEMPT_IF_LIVE, failure.code(), failure.message(),
                            failure.retryable(), failure.offendingAnswer(), failure.unsent(), attemptId,
                            failure.unsent())
                    : LedgerSql.update(connection, FAIL_ATTEMPT_IF_RESOLVABLE, failure.code(), failure.message(),
                            failure.retryable(), failure.offendingAnswer(), attemptId);
            if (failed == 0) {
                return notFailed(connection, attemptId, action);
            }
            if (action != null) {
                LedgerSteps.record(connection, attempt, action);
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
                Attempt created = LedgerSteps.insertAttempt(connection, job, next.get(), job.version() + 1, null)
                        .orElseThrow(() -> new IllegalStateException("failover found a live attempt on " + job.id()));
                LedgerSteps.bumpVersionForNewAttempt(connection, job);
                return new FailureOutcome.FailedOver(attemptId, created);
            }
            return failJob(connection, job, attempt, failure, skipped);
        });
    }

    /** The gate's answers for every provider of the job's chain, asked now and replayed inside the transaction. */
    private static ProviderGate decidedBefore(ProviderGate gate, Job unlocked) {
        Map<String, Optional<String>> eligibility = new HashMap<>();
        for (String provider : unlocked.providerChain()) {
            eligibility.put(provider, gate.whyNot(unlocked, provider));
        }
        return new ProviderGate() {
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
    }

    /** Why the attempt did not move to FAILED: it already had (a redelivery), or it may not now. */
    private static FailureOutcome notFailed(Connection connection, UUID attemptId, OperatorAction action)
            throws SQLException {
        Attempt now = LedgerSql.queryOne(connection, LedgerSteps.SELECT_ATTEMPT, LedgerRows::attempt, attemptId)
                .orElseThrow();
        if (action == null && now.status() == AttemptStatus.FAILED) {
            return new FailureOutcome.AlreadyApplied(attemptId);
        }
        return new FailureOutcome.Rejected(attemptId, action == null ? "attempt is " + now.status()
                : notResolvable(now));
    }

    /** No retry and no failover: the job FAILED, saying why no fallback took it, and its result queued. */
    private static FailureOutcome failJob(Connection connection, Job job, Attempt attempt, AttemptFailure failure,
                                          List<String> skipped) throws SQLException {
        String left = !failure.allowsFailover() ? "no fallback is tried for it (another provider would most"
                + " likely be paid for an answer as large)"
                : skipped.isEmpty() ? "no fallback is left" : "no fallback may take it (" + String.join("; ",
                skipped) + ")";
        LedgerSql.updateExactlyOne(connection, FAIL_JOB, "job version moved under lock", failure.code(),
                "attempt " + attempt.number() + " on " + attempt.provider() + " failed (" + failure.message()
                        + ") and " + left, job.id(), job.version());
        LedgerSteps.enqueueJobResult(connection, job.id());
        return new FailureOutcome.JobFailed(job.id(), attempt.id());
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
        Duration backoff = policy.backoff(tries, failure.retryAfter(), ThreadLocalRandom.current());
        Attempt created = LedgerSteps.insertAttempt(connection, job, failed.provider(), job.version() + 1, null,
                        backoff)
                .orElseThrow(() -> new IllegalStateException("a retry found a live attempt on " + job.id()));
        LedgerSteps.bumpVersionForNewAttempt(connection, job);
        return Optional.of(new FailureOutcome.RetryScheduled(failed.id(), created, backoff));
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

    /** Why an operator may not resolve {@code attempt} now: its status, or its soft deadline while it runs. */
    private static String notResolvable(Attempt attempt) {
        if (attempt.status() == AttemptStatus.STARTING && attempt.softDeadline() != null) {
            return "STARTING inside its soft deadline (" + attempt.softDeadline() + "): its call may still answer";
        }
        return attempt.status().name();
    }
}
