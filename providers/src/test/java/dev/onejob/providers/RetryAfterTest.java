package dev.onejob.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
    private static final Instant NOW = Instant.parse("2026-12-07T10:00:00Z");

    private static Optional<Duration> hint(Map<String, String> headers) {
        Map<String, List<String>> multi = new HashMap<>();
        headers.forEach((name, value) -> multi.put(name, List.of(value)));
        return RetryAfter.of(HttpHeaders.of(multi, (a, b) -> true), NOW);
    }

    @Test
    void openAisMillisecondsComeFirst() {
        assertEquals(Optional.of(Duration.ofMillis(1500)), hint(Map.of("retry-after-ms", "1500", "Retry-After", "9")));
        assertEquals(Optional.of(Duration.ofNanos(20_500_000)), hint(Map.of("retry-after-ms", "20.5")));
    }

    @Test
    void retryAfterIsSecondsOrAnHttpDate() {
        assertEquals(Optional.of(Duration.ofSeconds(1)), hint(Map.of("Retry-After", "1")));
        assertEquals(Optional.of(Duration.ofSeconds(30)),
                hint(Map.of("Retry-After", "Mon, 07 Dec 2026 10:00:30 GMT")));
        assertEquals(Optional.empty(), hint(Map.of("Retry-After", "Mon, 07 Dec 2026 09:59:00 GMT")), "in the past");
        assertEquals(Optional.empty(), hint(Map.of("Retry-After", "soon")));
        assertEquals(Optional.empty(), hint(Map.of("Retry-After", "-3")));
    }

    @Test
    void theLatestRateLimitResetCountsWhenNothingElseIsSaid() {
        assertEquals(Optional.of(Duration.ofSeconds(360)),
                hint(Map.of("x-ratelimit-reset-requests", "1s", "x-ratelimit-reset-tokens", "6m0s")));
        assertEquals(Optional.of(Duration.ofMillis(250)), hint(Map.of("x-ratelimit-reset-requests", "250ms")));
        assertEquals(Optional.of(Duration.ofMillis(3723500)), hint(Map.of("x-ratelimit-reset-tokens", "1h2m3.5s")));
        assertEquals(Optional.of(Duration.ofSeconds(12)), hint(Map.of(
                "anthropic-ratelimit-requests-reset", "2026-12-07T10:00:12Z",
                "anthropic-ratelimit-tokens-reset", "2026-12-07T10:00:02Z")));
        assertEquals(Optional.empty(), hint(Map.of("x-ratelimit-reset-requests", "1s2")));
    }

    @Test
    void noHeadersNoHint() {
        assertEquals(Optional.empty(), hint(Map.of()));
        assertEquals(Optional.empty(), hint(Map.of("Retry-After", "864000")), "ten days is a mistake, not a wait");
    }
}
