package dev.onejob.reconciler;

import dev.onejob.core.service.Backoff;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * How long a failed stream thread of the race statistics waits before Kafka Streams replaces it: a failure that
 * persists (the broker refusing the state store's changelog) would otherwise replace threads back to back, each
 * replaying the same records and rebalancing the group. Waits double from 1 s to 30 s; a thread that failed more than
 * {@link #QUIET} after the previous failure starts again at 1 s. Consulted from the failing stream thread by the
 * uncaught-exception handler, possibly from several threads, hence synchronized.
 */
final class ThreadRestarts {
    static final Duration QUIET = Duration.ofMinutes(1);

    private final Clock clock;
    private final Backoff backoff;
    private Instant lastFailure = Instant.MIN;

    ThreadRestarts(Clock clock, Backoff backoff) {
        this.clock = clock;
        this.backoff = backoff;
    }

    static ThreadRestarts standard() {
        return new ThreadRestarts(Clock.systemUTC(), new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30)));
    }

    /** The wait before replacing the thread that failed now. */
    synchronized Duration nextWait() {
        Instant now = clock.instant();
        if (lastFailure.isBefore(now.minus(QUIET))) {
            backoff.reset();
        }
        lastFailure = now;
        return backoff.next();
    }
}
