package dev.onejob.ingest.http;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class OwnerRateLimitTest {

    @Test
    void anOwnerGetsABurstOfTwiceTheRateThen429WhileOthersAreUnaffected() {
        OwnerRateLimit limit = new OwnerRateLimit(2);
        for (int i = 0; i < 4; i++) {
            assertDoesNotThrow(() -> limit.acquire("alice"));
        }
        Problem tooMany = assertThrows(Problem.class, () -> limit.acquire("alice"));
        assertEquals(429, tooMany.status());
        assertEquals("rate-limited", tooMany.type());
        assertDoesNotThrow(() -> limit.acquire("bob"));
    }

    @Test
    void zeroMeansNoLimit() {
        OwnerRateLimit limit = new OwnerRateLimit(0);
        for (int i = 0; i < 10_000; i++) {
            limit.acquire("alice");
        }
    }
}
