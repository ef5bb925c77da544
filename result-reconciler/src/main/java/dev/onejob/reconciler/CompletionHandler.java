package dev.onejob.reconciler;

import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptAnswer;
import dev.onejob.core.ledger.AttemptFailure;
import dev.onejob.core.ledger.BilledCall;
import dev.onejob.core.ledger.BillingStore;
import dev.onejob.core.ledger.CompletionOutcome;
import dev.onejob.core.ledger.FailureOutcome;
import dev.onejob.core.ledger.JobRounds;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.ProviderGate;
import dev.onejob.core.ledger.TransitionOutcome;
import dev.onejob.core.service.LogContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies attempt completions to the ledger: a poll's successes as sets, through one compare-and-swap statement per
 * set ({@link AttemptCompletions#completeAll}), failures and UNKNOWN reports one at a time (a definite refusal may be retried
 * on its provider after a backoff, as its retry policy allows; any other failure may fail over, which asks the
 * certification gate). Every step is idempotent by construction (the completion CAS, the conditional
 * transitions, outbox rows unique per attempt or job), so a completion processed twice after a crash changes nothing
 * the second time. The records it announces (job-results, race-audit, failover commands) are written to the outbox
 * in the same PostgreSQL transaction, never published from here: an aborted Kafka transaction cannot lose them, and a
 * replay that finds the work done cannot publish them twice.
 */
public final class CompletionHandler {
    private static final Logger log = LoggerFactory.getLogger(CompletionHandler.class);

    /** What the handler did; {@link Rejected} sends the completion to the dead-letter topic with the reason. */
    public sealed interface Applied {
    }

    public record Done(String event) implements Applied {
    }

    public record Rejected(String reason) implements Applied {
    }

    private final Ledger ledger;
    private final BillingStore billing;
    private final ProviderGate gate;
    private final ReconcilerMetrics metrics;
    private final boolean startTokensRequired;

    /** Requiring every completion's start token. */
    public CompletionHandler(Ledger ledger, BillingStore billing, ProviderGate gate, ReconcilerMetrics metrics) {
        this(ledger, billing, gate, metrics, true);
    }

    /**
     * {@code startTokensRequired}: a completion without its attempt's start token is refused (dead-lettered), except
     * a failure that sent nothing for an attempt nobody started; false applies one without a token unchecked.
     */
    public CompletionHandler(Ledger ledger, BillingStore billing, ProviderGate gate, ReconcilerMetrics metrics,
                             boolean startTokensRequired) {
        this.ledger = ledger;
        this.billing = billing;
        this.gate = gate;
        this.metrics = metrics;
        this.startTokensRequired = startTokensRequired;
    }

    /**
     * Applies a poll's completions; what each did, in the order given. A job's completions are applied in the order
     * they came: its n-th completion of the poll goes in the n-th round, and each round applies its successes as one
     * set, then its other reports one by one.
     */
    public List<Applied> applyAll(List<AttemptCompletion> completions) {
        Applied[] applied = new Applied[completions.size()];
        List<AttemptCompletion> tokened = new ArrayList<>(completions.size());
        for (int i = 0; i < completions.size(); i++) {
            String missing = missingToken(completions.get(i));
            if (missing != null) {
                applied[i] = counted(completions.get(i), new Rejected(missing));
            } else {
                tokened.add(completions.get(i));
            }
        }
        bill(tokened);
        for (List<Integer> round : JobRounds.of(completions, AttemptCompletion::jobId)) {
            List<Integer> successes = new ArrayList<>();
            for (int i : round) {
                if (applied[i] != null) {
                    continue;
                }
                if (completions.get(i).outcome() == AttemptCompletion.Outcome.SUCCEEDED) {
                    successes.add(i);
                } else {
                    applied[i] = applyOrRefused(completions.get(i));
                }
            }
            List<CompletionOutcome> outcomes = successes.isEmpty() ? List.of()
                    : ledger.completions().completeAll(successes.stream().map(completions::get).map(CompletionHandler::answer)
                            .toList());
            for (int k = 0; k < successes.size(); k++) {
                AttemptCompletion completion = completions.get(successes.get(k));
                try (LogContext ignored = LogContext.of(completion.jobId(), completion.attemptId())) {
                    applied[successes.get(k)] = counted(completion, succeeded(completion, outcomes.get(k)));
                }
            }
        }
        return List.of(applied);
    }

    /**
     * What the provider billed, recorded first and whatever the outcomes: a race lost or a contract broken was billed
     * all the same, and the race-audit record of a lost race carries the loser's cost. Recording is idempotent per
     * attempt, so a poll replayed after a crash bills nothing twice.
     */
    private void bill(List<AttemptCompletion> completions) {
        List<BilledCall> calls = new ArrayList<>();
        for (AttemptCompletion completion : completions) {
            if (completion.usage() != null) {
                calls.add(new BilledCall(completion.attemptId(), completion.jobId(), completion.provider(),
                        completion.model(), completion.usage(), completion.costUsd(), completion.startToken()));
            }
        }
        if (!calls.isEmpty()) {
            billing.recordAll(calls);
        }
    }

    /** One report alone; Rejected with PostgreSQL's reason when it refuses the report's data (on every replay). */
    private Applied applyOrRefused(AttemptCompletion completion) {
        try {
            return applyBilled(completion);
        } catch (DatabaseException e) {
            if (DatabaseException.isDataRefusal(e)) {
                return counted(completion, new Rejected("PostgreSQL refused to store it: " + e.getMessage()));
            }
            throw e;
        }
    }

    private static AttemptAnswer answer(AttemptCompletion completion) {
        return new AttemptAnswer(completion.jobId(), completion.attemptId(), completion.provider(),
                completion.result(), completion.providerRequestId(), completion.startToken(),
                completion.finishReason());
    }

    /**
     * Why a completion without a start token is refused before anything is billed or applied; null when it carries
     * one, or need not. Only a worker that started the attempt knows the token (it wrote it, and the ledger never shows
     * it), so a completion from anyone else cannot claim a start. The one completion without a start is a failure that
     * sent nothing, for an attempt the worker could not start at all: the claims check below holds it to an attempt
     * that has no token either.
     */
    private String missingToken(AttemptCompletion completion) {
        if (completion.startToken() != null || !startTokensRequired) {
            return null;
        }
        if (completion.outcome() == AttemptCompletion.Outcome.FAILED && !completion.error().sent()) {
            return null;
        }
        return "the completion carries no start token (attempt-completion version 3 does; START_TOKENS=required)";
    }

    private Applied counted(AttemptCompletion completion, Applied applied) {
        metrics.applied(completion.outcome().name(), applied instanceof Done done ? done.event() : "rejected");
        return applied;
    }

    /** One completion alone: its billing, then its outcome. */
    public Applied apply(AttemptCompletion completion) {
        return applyAll(List.of(completion)).get(0);
    }

    private Applied applyBilled(AttemptCompletion completion) {
        try (LogContext ignored = LogContext.of(completion.jobId(), completion.attemptId())) {
            return applyInContext(completion);
        }
    }

    private Applied applyInContext(AttemptCompletion completion) {
        if (completion.outcome() == AttemptCompletion.Outcome.SUCCEEDED) {
            // The compare-and-swap's own statement checks the attempt, the job and the provider.
            return counted(completion, succeeded(completion, ledger.completions().completeAll(List.of(answer(completion))).get(0)));
        }
        Optional<Attempt> attempt = ledger.lookups().attempt(completion.attemptId());
        if (attempt.isEmpty()) {
            metrics.applied(completion.outcome().name(), "rejected");
            return new Rejected("no attempt " + completion.attemptId() + " in the ledger");
        }
        if (!attempt.get().jobId().equals(completion.jobId())) {
            metrics.applied(completion.outcome().name(), "rejected");
            return new Rejected("attempt " + completion.attemptId() + " belongs to job " + attempt.get().jobId()
                    + ", not " + completion.jobId());
        }
        if (!attempt.get().provider().equals(completion.provider())) {
            metrics.applied(completion.outcome().name(), "rejected");
            return new Rejected("attempt " + completion.attemptId() + " ran on " + attempt.get().provider()
                    + ", not " + completion.provider());
        }
        if ((completion.startToken() != null || startTokensRequired)
                && !Objects.equals(attempt.get().startToken(), completion.startToken())) {
            metrics.applied(completion.outcome().name(), "rejected");
            return new Rejected(completion.startToken() == null ? "attempt " + completion.attemptId() + " was started,"
                    + " and this completion names no start of it"
                    : "attempt " + completion.attemptId() + " was not started with the start token this completion"
                    + " carries");
        }
        Applied applied = completion.outcome() == AttemptCompletion.Outcome.FAILED ? failed(completion)
                : unknown(completion);
        metrics.applied(completion.outcome().name(), applied instanceof Done done ? done.event() : "rejected");
        return applied;
    }

    private Applied succeeded(AttemptCompletion completion, CompletionOutcome outcome) {
        if (outcome instanceof CompletionOutcome.Won) {
            log.debug("event=won job={} attempt={} provider={}", completion.jobId(), completion.attemptId(),
                    completion.provider());
            return new Done("won");
        }
        if (outcome instanceof CompletionOutcome.Lost lost) {
            log.info("event=lost_race job={} attempt={} winner={} reason={} first_report={}", completion.jobId(),
                    completion.attemptId(), lost.winner(), lost.reason().wireName(), lost.firstReport());
            if (lost.firstReport()) {
                String winner = lost.winner() == null ? "none"
                        : ledger.lookups().attempt(lost.winner()).map(Attempt::provider).orElse("unknown");
                metrics.lostRace(winner, completion.provider(), lost.reason().wireName());
            }
            return new Done("lost");
        }
        if (outcome instanceof CompletionOutcome.AlreadyApplied) {
            log.info("event=already_applied job={} attempt={}", completion.jobId(), completion.attemptId());
            return new Done("already-applied");
        }
        return new Rejected(((CompletionOutcome.Rejected) outcome).reason());
    }

    private Applied failed(AttemptCompletion completion) {
        AttemptCompletion.Error error = completion.error();
        // A failure that sent nothing may end a PENDING attempt: the worker could not run its command at all.
        FailureOutcome outcome = ledger.failures().fail(completion.attemptId(), new AttemptFailure(error.code(), error.message(),
                error.retryable(), error.offendingAnswer(), !error.sent(),
                error.retryAfterMs() == null ? null : Duration.ofMillis(error.retryAfterMs())), gate);
        if (outcome instanceof FailureOutcome.RetryScheduled retry) {
            log.info("event=retry_scheduled job={} failed_attempt={} code={} next_attempt={} provider={} "
                            + "backoff_ms={} provider_hint_ms={}", completion.jobId(), completion.attemptId(),
                    error.code(), retry.next().id(), retry.next().provider(), retry.backoff().toMillis(),
                    error.retryAfterMs());
            return new Done("retry-scheduled");
        }
        if (outcome instanceof FailureOutcome.FailedOver over) {
            log.info("event=failover job={} failed_attempt={} code={} next_attempt={} next_provider={}",
                    completion.jobId(), completion.attemptId(), error.code(), over.next().id(), over.next().provider());
            return new Done("failed-over");
        }
        if (outcome instanceof FailureOutcome.JobFailed) {
            log.info("event=job_failed job={} attempt={} code={}", completion.jobId(), completion.attemptId(),
                    error.code());
            return new Done("job-failed");
        }
        if (outcome instanceof FailureOutcome.AlreadyApplied) {
            return new Done("already-applied");
        }
        // A failure reported for an attempt that was cancelled, discarded or won meanwhile: nothing to do.
        log.info("event=failure_ignored job={} attempt={} reason=\"{}\"", completion.jobId(), completion.attemptId(),
                ((FailureOutcome.Rejected) outcome).reason());
        return new Done("ignored");
    }

    private Applied unknown(AttemptCompletion completion) {
        TransitionOutcome outcome = ledger.starts().markUnknown(completion.attemptId());
        if (outcome instanceof TransitionOutcome.Applied) {
            log.info("event=unknown job={} attempt={} reason=\"{}\"", completion.jobId(), completion.attemptId(),
                    completion.unknownReason());
            return new Done("unknown");
        }
        return new Done("ignored");
    }
}
