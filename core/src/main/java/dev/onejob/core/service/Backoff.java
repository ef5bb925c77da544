package dev.onejob.core.service;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongUnaryOperator;

/**
 * How long a loop waits before it tries again after a transient failure (PostgreSQL or the broker away, a
 * serialization failure, a timeout): the first wait is {@code initial}, each further one doubles up to {@code max},
 * and every wait is jittered down by up to a fifth so that the consumers of one group, failed by one outage, do not
 * come back in step. {@link #reset()} after a success starts again from {@code initial}. Not thread-safe: one loop,
 * one instance.
 */
public final class Backoff {
    /** The loops' default: 200 ms, doubling to 10 s. */
    public static Backoff standard() {
        return new Backoff(Duration.ofMillis(200), Duration.ofSeconds(10));
    }

    private final long initialMillis;
    private final long maxMillis;
    private final LongUnaryOperator jitter;
    private int failures;

    public Backoff(Duration initial, Duration max) {
        this(initial, max, bound -> bound - ThreadLocalRandom.current().nextLong(bound / 5 + 1));
    }

    /** With {@code jitter} mapping the unjittered wait to the one used (tests pass the identity). */
    Backoff(Duration initial, Duration max, LongUnaryOperator jitter) {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("a backoff needs 0 < initial <= max, not " + initial + " and " + max);
        }
        this.initialMillis = initial.toMillis();
        this.maxMillis = max.toMillis();
        this.jitter = jitter;
    }

    /** The wait before the next try, counting one more consecutive failure. */
    public Duration next() {
        long wait = initialMillis;
        for (int i = 0; i < failures && wait < maxMillis; i++) {
            wait = Math.min(maxMillis, wait * 2);
        }
        failures++;
        return Duration.ofMillis(Math.max(1, jitter.applyAsLong(wait)));
    }

    /** Consecutive failures since the last {@link #reset()}: for the log line. */
    public int failures() {
        return failures;
    }

    /** After a success: the next failure waits {@code initial} again. */
    public void reset() {
        failures = 0;
    }

    /** Sleeps {@link #next()}; false if interrupted (the interrupt flag is set again). */
    public boolean sleep() {
        try {
            Thread.sleep(next().toMillis());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
