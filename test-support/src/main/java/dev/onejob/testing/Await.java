package dev.onejob.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting on another thread or process by polling a condition against a deadline, never by a fixed sleep. */
public final class Await {
    private Await() {
    }

    public static void until(Duration timeout, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }
}
