package dev.onejob.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    private static final RetryPolicy POLICY = new RetryPolicy(4, Duration.ofSeconds(1), Duration.ofSeconds(60));
    /** No jitter: the lowest draw. */
    private static final RandomGenerator LOWEST = new RandomGenerator() {
        @Override
        public long nextLong() {
            return 0;
        }

        @Override
        public long nextLong(long bound) {
            return 0;
        }
    };
    /** The most jitter: the highest draw. */
    private static final RandomGenerator HIGHEST = new RandomGenerator() {
        @Override
        public long nextLong() {
            return Long.MAX_VALUE;
        }

        @Override
        public long nextLong(long bound) {
            return bound - 1;
        }
    };

    @Test
    void withoutAHintTheBackoffDoublesUpToItsCap() {
        assertEquals(Duration.ofSeconds(1), POLICY.backoff(1, null, LOWEST));
        assertEquals(Duration.ofSeconds(2), POLICY.backoff(2, null, LOWEST));
        assertEquals(Duration.ofSeconds(4), POLICY.backoff(3, null, LOWEST));
        assertEquals(Duration.ofSeconds(60), POLICY.backoff(12, null, LOWEST));
    }

    @Test
    void theProvidersHintIsHonouredAndCapped() {
        assertEquals(Duration.ofSeconds(7), POLICY.backoff(1, Duration.ofSeconds(7), LOWEST));
        assertEquals(Duration.ofSeconds(60), POLICY.backoff(1, Duration.ofMinutes(10), LOWEST));
    }

    @Test
    void jitterOnlyAddsATenthAtMostASecond() {
        assertEquals(Duration.ofMillis(2200), POLICY.backoff(1, Duration.ofSeconds(2), HIGHEST));
        assertEquals(Duration.ofSeconds(61), POLICY.backoff(1, Duration.ofSeconds(60), HIGHEST));
        assertTrue(POLICY.backoff(1, Duration.ofSeconds(1), RandomGenerator.getDefault())
                .compareTo(Duration.ofSeconds(1)) >= 0, "never earlier than the provider asked");
    }

    @Test
    void attemptsAreCountedOnTheProvider() {
        assertTrue(POLICY.allowsAnother(3));
        assertFalse(POLICY.allowsAnother(4));
        assertFalse(RetryPolicy.NONE.allowsAnother(1));
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(0, Duration.ZERO, Duration.ZERO));
        assertThrows(IllegalArgumentException.class,
                () -> new RetryPolicy(2, Duration.ofSeconds(5), Duration.ofSeconds(1)));
    }
}
