package dev.onejob.core.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {
    @Test
    void waitsDoubleUpToTheMaximumAndStartOverAfterAReset() {
        Backoff backoff = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(1), wait -> wait);
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waits.add(backoff.next().toMillis());
        }
        assertEquals(List.of(200L, 400L, 800L, 1000L, 1000L), waits);
        assertEquals(5, backoff.failures());

        backoff.reset();

        assertEquals(Duration.ofMillis(200), backoff.next());
    }

    @Test
    void jitterOnlyShortensAWaitByAtMostAFifth() {
        Backoff backoff = Backoff.standard();
        for (int i = 0; i < 200; i++) {
            long unjittered = Math.min(10_000, 200L << Math.min(i, 10));
            long wait = backoff.next().toMillis();
            assertTrue(wait >= unjittered * 4 / 5 && wait <= unjittered, "wait " + wait + " for " + unjittered);
        }
    }

    @Test
    void refusesAMaximumBelowTheFirstWait() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        assertTrue(refused.getMessage().contains("0 < initial <= max"), refused.getMessage());
    }
}
