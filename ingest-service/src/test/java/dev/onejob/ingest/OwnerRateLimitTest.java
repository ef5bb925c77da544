package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class OwnerRateLimitTest {

    @Test
    void anOwnerGetsABurstOfTwiceTheRateThenAWaitWhileOthersAreUnaffected() {
        OwnerRateLimit limit = new OwnerRateLimit(2);
        for (int i = 0; i < 4; i++) {
            assertEquals(OptionalLong.empty(), limit.take("alice"), "token " + i);
        }
        OptionalLong wait = limit.take("alice");
        assertTrue(wait.isPresent() && wait.getAsLong() >= 1, wait.toString());
        assertEquals(OptionalLong.empty(), limit.take("bob"));
    }

    @Test
    void zeroMeansNoLimit() {
        OwnerRateLimit limit = new OwnerRateLimit(0);
        for (int i = 0; i < 10_000; i++) {
            assertEquals(OptionalLong.empty(), limit.take("alice"));
        }
    }
}
