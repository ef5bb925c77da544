package dev.onejob.reconciler;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.service.Backoff;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ThreadRestartsTest {
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-04T00:00:00Z"));
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };

    @Test
    void failuresInARowWaitLongerEachTime() {
        ThreadRestarts restarts = new ThreadRestarts(clock, Backoff.standard());
        Duration first = restarts.nextWait();
        now.set(now.get().plusSeconds(5));
        restarts.nextWait();
        now.set(now.get().plusSeconds(5));
        Duration third = restarts.nextWait();

        assertTrue(third.compareTo(first) > 0, third + " after " + first);
        assertTrue(third.toMillis() >= 800 * 4 / 5, "third wait " + third);
    }

    @Test
    void aFailureAfterAQuietMinuteStartsAgainFromTheShortestWait() {
        ThreadRestarts restarts = new ThreadRestarts(clock, Backoff.standard());
        for (int i = 0; i < 6; i++) {
            restarts.nextWait();
            now.set(now.get().plusSeconds(1));
        }
        now.set(now.get().plus(ThreadRestarts.QUIET).plusSeconds(1));

        Duration wait = restarts.nextWait();
        assertTrue(wait.toMillis() <= 200, "wait after a quiet minute " + wait);
    }
}
