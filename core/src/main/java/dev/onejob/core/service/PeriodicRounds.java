package dev.onejob.core.service;

import dev.onejob.core.db.DatabaseException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loop of housekeeping rounds over the database, one every {@code every} until closed, the first at once. PostgreSQL
 * being away fails only that round: it is logged as {@code event=<failedEvent>} and the next round tries again. A
 * round that works in windows asks {@link #stopping()} between them, so a close does not wait for a long round.
 */
public abstract class PeriodicRounds implements Loops.Loop {
    private final Logger log = LoggerFactory.getLogger(getClass());
    private final Duration every;
    private final String failedEvent;
    private final CountDownLatch stop = new CountDownLatch(1);

    protected PeriodicRounds(Duration every, String failedEvent) {
        this.every = every;
        this.failedEvent = failedEvent;
    }

    /** One round. */
    protected abstract void round();

    /** Whether the loop was closed: a round stops between its windows. */
    protected final boolean stopping() {
        return stop.getCount() == 0;
    }

    @Override
    public final void run() {
        try {
            do {
                try {
                    round();
                } catch (DatabaseException e) {
                    log.warn("event={} error=\"{}\" action=retry_in_{}s", failedEvent, e.getMessage(),
                            every.toSeconds());
                }
            } while (!stop.await(every.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop.countDown();
    }
}
