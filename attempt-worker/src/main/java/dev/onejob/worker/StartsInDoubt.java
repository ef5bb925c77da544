package dev.onejob.worker;

import static dev.onejob.worker.AttemptWorker.abandonAfter;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.ledger.AttemptStarts;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.TransitionOutcome;
import dev.onejob.core.service.LogContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The starts of a poll's attempts (PENDING -> STARTING, one transaction for the poll) and the starts in doubt that
 * they leave when that transaction fails with a database error: it may have committed. Consumes the commands the poll
 * thread read; hands the starts that applied to {@link AttemptCalls}. Owns the starts in doubt, by attempt id; each
 * keeps its token, so that this worker, and only it, recognises the start as its own, on the record's next reading
 * ({@link #startable}) or, if the partition moved to another worker meanwhile, in {@link #resolveDoubts}. Used by the
 * poll thread only.
 */
final class StartsInDoubt {
    private static final Logger log = LoggerFactory.getLogger(StartsInDoubt.class);

    /** The code of a FAILED completion for an attempt whose start this worker made but whose request it never sent. */
    static final String NOT_SENT = "not_sent";
    /** More starts in doubt than this (a database away for long) are dropped; the sweeper settles them. */
    private static final int MAX_DOUBTS = 10_000;

    /**
     * A command of this poll that may be started: what its call needs, and the token its start is written with;
     * {@code inDoubt} when an earlier start of it by this worker is in doubt (and {@code token} is that start's).
     */
    record Startable(AttemptCommand command, ProviderConfig provider, Contract contract, UUID token, boolean inDoubt) {
    }

    /** A start in doubt: the token it was written with, and what the call needs. */
    private record Doubt(UUID token, AttemptCommand command, ProviderConfig provider, Contract contract) {
    }

    private final Ledger ledger;
    private final AttemptCalls calls;
    private final WorkerMetrics metrics;
    private final Map<UUID, Doubt> doubtful = new HashMap<>();

    StartsInDoubt(Ledger ledger, AttemptCalls calls, WorkerMetrics metrics) {
        this.ledger = ledger;
        this.calls = calls;
        this.metrics = metrics;
    }

    /**
     * The command as one to start. The token names this one start: when PostgreSQL committed the start but the answer
     * was lost, the doubt keeps the token, and the start is recognised as this worker's own on the next reading or
     * in {@link #resolveDoubts}. The doubt stays until the start's outcome is known: a poll that fails later is read
     * again.
     */
    Startable startable(AttemptCommand command, ProviderConfig provider, Contract contract) {
        Doubt earlier = doubtful.get(command.attemptId());
        UUID token = earlier == null ? UUID.randomUUID() : earlier.token();
        return new Startable(command, provider, contract, token, earlier != null);
    }

    /** The starts of one poll in one transaction, then the calls of those that applied. */
    void startAll(List<Startable> starts) {
        List<TransitionOutcome> outcomes;
        try {
            outcomes = ledger.starts().startAll(starts.stream().map(start -> new AttemptStarts.Start(
                    start.command().attemptId(), start.provider().softTimeout(), abandonAfter(start.provider()),
                    start.token())).toList());
        } catch (DatabaseException e) {
            putInDoubt(starts);
            throw e;
        }
        launchApplied(starts, outcomes);
        // Maybe UNKNOWN with our token (the request never left): a database away now leaves it to resolveDoubts.
        resolveDoubts();
    }

    /** The transaction may have committed: every start of it is in doubt, each with its token. */
    private void putInDoubt(List<Startable> starts) {
        if (doubtful.size() + starts.size() > MAX_DOUBTS) {
            log.warn("event=doubts_dropped count={} reason=\"too many starts in doubt\"", doubtful.size());
            doubtful.clear();
        }
        for (Startable start : starts) {
            doubtful.put(start.command().attemptId(), new Doubt(start.token(), start.command(), start.provider(),
                    start.contract()));
        }
    }

    /** Every start that applied is called before anything else can fail: a start left uncalled is a phantom. */
    private void launchApplied(List<Startable> starts, List<TransitionOutcome> outcomes) {
        for (int i = 0; i < starts.size(); i++) {
            Startable start = starts.get(i);
            AttemptCommand command = start.command();
            try (LogContext ignored = LogContext.of(command.jobId(), command.attemptId())) {
                if (outcomes.get(i) instanceof TransitionOutcome.NotApplied notApplied) {
                    // An earlier start of ours in doubt that is not STARTING with its token stays a doubt, settled
                    // by resolveDoubts (UNKNOWN with our token means the request never left); anything else was
                    // someone else's.
                    if (!start.inDoubt()) {
                        metrics.skipped();
                        log.info("event=command_skipped job={} attempt={} status={} reason=\"already started or"
                                + " finished\"", command.jobId(), command.attemptId(), notApplied.current());
                    }
                    continue;
                }
                doubtful.remove(command.attemptId());
                calls.launch(command, start.provider(), start.contract(), start.token());
            }
        }
    }

    /**
     * Settles each start in doubt with its own token: still STARTING with it, the start was ours and the call is
     * made now (another worker reading the record finds a foreign token and skips it); UNKNOWN with it (the sweeper
     * came first), the request never left this worker, which says so with a FAILED completion that is not sent, so
     * the reconciler fails over as for any definite failure instead of leaving a phantom UNKNOWN for an operator;
     * anything else was settled by someone else. A database still away leaves the doubts for the next round.
     */
    void resolveDoubts() {
        for (Doubt doubt : List.copyOf(doubtful.values())) {
            try (LogContext ignored = LogContext.of(doubt.command().jobId(), doubt.command().attemptId())) {
                settle(doubt);
            } catch (DatabaseException e) {
                return;
            }
        }
    }

    /** Starts the attempt with the doubt's token and acts on the answer; the doubt is settled unless this throws. */
    private void settle(Doubt doubt) {
        AttemptCommand command = doubt.command();
        TransitionOutcome started = ledger.starts().start(command.attemptId(), doubt.provider().softTimeout(),
                abandonAfter(doubt.provider()), doubt.token());
        boolean unsent = started instanceof TransitionOutcome.NotApplied
                && ledger.starts().isUnknownWithToken(command.attemptId(), doubt.token());
        doubtful.remove(command.attemptId());
        if (started instanceof TransitionOutcome.Applied) {
            log.info("event=start_recognised job={} attempt={} action=call", command.jobId(), command.attemptId());
            calls.launch(command, doubt.provider(), doubt.contract(), doubt.token());
        } else if (unsent) {
            String message = "this worker's start of the attempt committed but its acknowledgement was lost, and the"
                    + " attempt was made UNKNOWN before the worker could tell; the request was never sent";
            log.warn("event=start_unsent job={} attempt={} action=fail_not_sent", command.jobId(), command.attemptId());
            calls.publishNow(Completions.notRunnable(command, doubt.token(), NOT_SENT, message));
        }
    }
}
