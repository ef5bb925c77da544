package dev.onejob.launcher.demo;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Waiting on the stack: asking again every 100 ms until a condition holds or a deadline passes; no fixed sleeps. */
final class Poll {
    private static final long INTERVAL_MS = 100;

    private Poll() {
    }

    /** The first value that satisfies {@code done}, or the last one seen when {@code timeout} ran out. */
    static <T> T until(Duration timeout, Supplier<T> probe, Predicate<T> done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        T value = probe.get();
        while (!done.test(value) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(INTERVAL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return value;
            }
            value = probe.get();
        }
        return value;
    }
}
