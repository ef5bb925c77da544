package dev.onejob.core.outbox;

import java.time.Duration;

/**
 * Wakes the outbox relays of this process when a transaction that queued events has committed
 * ({@link OutboxStore} asks for it through {@code Database.afterCommit}), so a relay publishes them at once instead
 * of at its next poll. It replaces PostgreSQL's {@code NOTIFY}, which every inserting transaction sent and which
 * makes committing transactions queue on one server-wide lock. Events queued by another process reach this one's
 * relays at their next poll ({@link OutboxRelay}'s idle wait). Owns a generation counter: a relay that saw
 * generation {@code g} and waits after it returns at once if an event was queued since.
 */
public final class OutboxWakeup {
    private static final Object LOCK = new Object();
    private static long generation;

    private OutboxWakeup() {
    }

    /** Events were committed to the outbox: wake every waiting relay. */
    public static void committed() {
        synchronized (LOCK) {
            generation++;
            LOCK.notifyAll();
        }
    }

    /** The generation now; pass it to {@link #awaitAfter} after a round that may have missed nothing before it. */
    static long generation() {
        synchronized (LOCK) {
            return generation;
        }
    }

    /** Waits until a commit after generation {@code seen}, or {@code max} at most; returns the generation then. */
    static long awaitAfter(long seen, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (LOCK) {
            long left;
            while (generation == seen && (left = deadline - System.nanoTime()) > 0) {
                LOCK.wait(Math.max(1, left / 1_000_000));
            }
            return generation;
        }
    }
}
