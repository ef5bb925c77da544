package dev.onejob.core.config;

import java.time.Duration;

/**
 * When a provider that keeps refusing is cooled down, from the providers file's
 * {@code cooldown: {allowed_fails, window, duration}} (LiteLLM's {@code allowed_fails} and {@code cooldown_time}): more
 * than {@code allowedFails} definite refusals (the retryable failures: 408, 429, 503, 529, not sent) within
 * {@code window} make it cool down for {@code duration} from the last of them. While it cools, a new job routed to it
 * whose chain has a fallback certified for its contract starts on that fallback; a job without one still starts on it
 * and waits its backoff when refused.
 */
public record Cooldown(int allowedFails, Duration window, Duration duration) {
    /** More than 3 refusals in a minute cool a provider down for a minute. */
    public static final Cooldown DEFAULT = new Cooldown(3, Duration.ofMinutes(1), Duration.ofMinutes(1));

    public Cooldown {
        if (allowedFails < 0) {
            throw new IllegalArgumentException("allowed_fails must be 0 or more, was " + allowedFails);
        }
        if (window.isNegative() || window.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("window must be positive and duration not negative, were " + window
                    + " and " + duration);
        }
    }

    /** Whether {@code refusals} within the window cool the provider down. */
    public boolean coolsDown(long refusals) {
        return refusals > allowedFails && !duration.isZero();
    }
}
