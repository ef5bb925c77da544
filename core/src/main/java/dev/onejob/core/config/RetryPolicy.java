package dev.onejob.core.config;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How a provider's definite refusals are retried on it, as new attempts of the same job: a refusal that ran nothing
 * (HTTP 408, 429, 503, 529, a connection refused, a request never sent) gets up to {@code maxAttempts} attempts on that
 * provider in all, each after a backoff; only then does the job fail over, and only after its last fallback is it
 * FAILED. From the providers file's {@code retry: {max_attempts, initial_backoff, max_backoff}}.
 *
 * <p>The backoff before the n-th retry is the provider's own hint when it gave one ({@code retry-after-ms},
 * {@code Retry-After}, a rate-limit reset header), else {@code initialBackoff * 2^(n-1)}; either is capped at
 * {@code maxBackoff}, then jittered upwards by up to a tenth (at most one second), so the retries of many jobs refused
 * together do not all come back in the same millisecond. Pure: the caller passes the random source.
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
    /** Four attempts on the provider (the first and three retries), from 1 s up to 60 s apart. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(4, Duration.ofSeconds(1), Duration.ofSeconds(60));
    /** No retry on the same provider: a refusal fails over at once (the rule before retries existed). */
    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, Duration.ZERO);
    /** The most attempts a providers file may allow on one provider. */
    public static final int MAX_ATTEMPTS_LIMIT = 20;
    private static final Duration MAX_JITTER = Duration.ofSeconds(1);

    public RetryPolicy {
        if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT) {
            throw new IllegalArgumentException("max_attempts must be 1.." + MAX_ATTEMPTS_LIMIT + ", was " + maxAttempts);
        }
        if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("initial_backoff (" + initialBackoff + ") must be 0 or more and not"
                    + " longer than max_backoff (" + maxBackoff + ")");
        }
    }

    /** Whether a job whose attempts on this provider number {@code triesSoFar} may have one more there. */
    public boolean allowsAnother(int triesSoFar) {
        return triesSoFar < maxAttempts;
    }

    /**
     * How long to wait before the retry that follows {@code triesSoFar} attempts on the provider.
     *
     * @param hint the provider's own "retry after" (null when it gave none)
     */
    public Duration backoff(int triesSoFar, Duration hint, RandomGenerator random) {
        Duration base;
        if (hint != null && !hint.isNegative()) {
            base = hint;
        } else {
            int doublings = Math.min(Math.max(triesSoFar - 1, 0), 30);
            base = initialBackoff.multipliedBy(1L << doublings);
        }
        if (base.compareTo(maxBackoff) > 0) {
            base = maxBackoff;
        }
        long jitterCap = Math.min(base.toMillis() / 10, MAX_JITTER.toMillis());
        return base.plusMillis(jitterCap <= 0 ? 0 : random.nextLong(jitterCap + 1));
    }
}
