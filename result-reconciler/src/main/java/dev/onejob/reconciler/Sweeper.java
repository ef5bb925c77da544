package dev.onejob.reconciler;

import dev.onejob.core.ledger.LedgerStore;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns attempts still STARTING when their worker counts as vanished (past the hard timeout plus a grace after the
 * start: a worker that lives reports UNKNOWN itself at the soft deadline) into UNKNOWN, on a schedule. Several
 * reconcilers may sweep at once: each move is a conditional transition. Never FAILED, never PENDING.
 */
public final class Sweeper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Sweeper.class);
    private final LedgerStore ledger;
    private final ReconcilerMetrics metrics;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sweeper");
        t.setDaemon(true);
        return t;
    });

    public Sweeper(LedgerStore ledger, ReconcilerMetrics metrics) {
        this.ledger = ledger;
        this.metrics = metrics;
    }

    public void start(Duration interval) {
        timer.scheduleWithFixedDelay(this::sweepOnce, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    void sweepOnce() {
        try {
            int moved;
            do {
                moved = ledger.sweepOverdue(500);
                if (moved > 0) {
                    metrics.swept(moved);
                    log.info("event=swept_unknown attempts={}", moved);
                }
            } while (moved == 500);
        } catch (RuntimeException e) {
            log.warn("event=sweep_failed error=\"{}\" action=retry_next_interval", e.toString());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
