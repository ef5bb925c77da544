package dev.onejob.reconciler;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.service.Backoff;
import dev.onejob.testing.MovableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ThreadRestartsTest {
    private final MovableClock clock = new MovableClock(Instant.parse("2026-12-04T00:00:00Z"));

    @Test
    void failuresInARowWaitLongerEachTime() {
        ThreadRestarts restarts = new ThreadRestarts(clock, Backoff.standard());
        Duration first = restarts.nextWait();
        clock.advance(Duration.ofSeconds(5));
        restarts.nextWait();
        clock.advance(Duration.ofSeconds(5));
        Duration third = restarts.nextWait();

        assertTrue(third.compareTo(first) > 0, third + " after " + first);
        assertTrue(third.toMillis() >= 800 * 4 / 5, "third wait " + third);
    }

    @Test
    void aFailureAfterAQuietMinuteStartsAgainFromTheShortestWait() {
        ThreadRestarts restarts = new ThreadRestarts(clock, Backoff.standard());
        for (int i = 0; i < 6; i++) {
            restarts.nextWait();
            clock.advance(Duration.ofSeconds(1));
        }
        clock.advance(ThreadRestarts.QUIET.plusSeconds(1));

        Duration wait = restarts.nextWait();
        assertTrue(wait.toMillis() <= 200, "wait after a quiet minute " + wait);
    }
}
