package dev.onejob.reconciler;

import dev.onejob.core.ledger.AttemptStarts;
import dev.onejob.core.ledger.Ledger;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns attempts still STARTING when their worker counts as vanished (past the hard timeout plus a grace after the
 * start: a worker that lives reports UNKNOWN itself at the soft deadline) into UNKNOWN, on a schedule. Several
 * reconcilers may sweep at once: each move is a conditional transition. Never FAILED, never PENDING.
 *
 * <p>Before it sweeps, it asks how far the reconcilers have applied attempt-completions ({@link CompletionProgress}):
 * an attempt is swept only once every completion produced on its partition before its {@code abandon_after} has been
 * applied. Otherwise its outcome may be waiting behind the reconciler, and sweeping it would make onejob's own queue
 * look like a provider that might still be working. When the progress cannot be read (the broker is away), nothing
 * is swept that round.
 */
public final class Sweeper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Sweeper.class);
    private final Ledger ledger;
    private final ReconcilerMetrics metrics;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sweeper");
        t.setDaemon(true);
        return t;
    });

    private static final int BATCH = 500;
    /** The progress of attempt-completions, or null to sweep on abandon_after alone. */
    private final Supplier<CompletionProgress.Snapshot> progress;

    public Sweeper(Ledger ledger, ReconcilerMetrics metrics) {
        this(ledger, metrics, null);
    }

    Sweeper(Ledger ledger, ReconcilerMetrics metrics, Supplier<CompletionProgress.Snapshot> progress) {
        this.ledger = ledger;
        this.metrics = metrics;
        this.progress = progress;
    }

    public void start(Duration interval) {
        timer.scheduleWithFixedDelay(this::sweepOnce, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    void sweepOnce() {
        try {
            List<AttemptStarts.Overdue> overdue;
            int moved;
            do {
                overdue = ledger.starts().overdue(BATCH);
                if (overdue.isEmpty()) {
                    return;
                }
                List<AttemptStarts.Overdue> vanished = overdue;
                if (progress != null) {
                    CompletionProgress.Snapshot applied = progress.get();
                    vanished = overdue.stream().filter(o -> applied.appliedBefore(o.jobId(), o.abandonAfter()))
                            .toList();
                    if (vanished.size() < overdue.size()) {
                        log.info("event=sweep_held attempts={} reason=\"completions produced before their "
                                + "abandon_after are not all applied yet\"", overdue.size() - vanished.size());
                    }
                }
                moved = ledger.starts().sweep(vanished);
                if (moved > 0) {
                    metrics.swept(moved);
                    log.info("event=swept_unknown attempts={}", moved);
                }
            } while (overdue.size() == BATCH && moved > 0);
        } catch (RuntimeException e) {
            log.warn("event=sweep_failed error=\"{}\" action=retry_next_interval", e.toString());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
