package dev.onejob.ingest.http;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A token bucket per owner for job submissions ({@code RATE_LIMIT_PER_OWNER} per second, bursts up to twice
 * that; 0 turns it off), per ingest instance. Over the limit the caller gets 429 with {@code Retry-After}.
 */
final class OwnerRateLimit {
    private final double perSecond;
    private final double burst;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

    private static final class Bucket {
        private double tokens;
        private long refilledAt;

        Bucket(double tokens, long now) {
            this.tokens = tokens;
            this.refilledAt = now;
        }
    }

    OwnerRateLimit(double perSecond) {
        this.perSecond = perSecond;
        this.burst = Math.max(1, perSecond * 2);
    }

    /** Takes one token for {@code owner}, or throws the 429 problem. */
    void acquire(String owner) {
        if (perSecond <= 0) {
            return;
        }
        long now = System.nanoTime();
        Bucket bucket = buckets.computeIfAbsent(owner, o -> new Bucket(burst, now));
        synchronized (bucket) {
            bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.refilledAt) / 1e9 * perSecond);
            bucket.refilledAt = now;
            if (bucket.tokens >= 1) {
                bucket.tokens -= 1;
                return;
            }
            long retryAfter = (long) Math.ceil((1 - bucket.tokens) / perSecond);
            throw new Problem(429, "rate-limited", "Too many requests", "owner " + owner + " may submit "
                    + perSecond + " jobs per second; retry after " + Math.max(1, retryAfter) + " s with the same "
                    + "Idempotency-Key").with("retry_after_seconds", Long.toString(Math.max(1, retryAfter)));
        }
    }
}
