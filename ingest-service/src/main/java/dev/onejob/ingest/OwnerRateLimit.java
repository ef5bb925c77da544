package dev.onejob.ingest;

import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A token bucket per owner for job submissions ({@code RATE_LIMIT_PER_OWNER} per second, bursts up to twice
 * that; 0 turns it off), per ingest instance, shared by both channels: an owner's HTTP submissions and its
 * {@code job-requests} records draw on one bucket, so records on Kafka cannot take more than the owner's share
 * either. Over the limit, HTTP answers 429 with {@code Retry-After} and writes nothing; on Kafka the record waits
 * in its partition, which the intake reads again once the bucket has refilled (a backlog is paced, never refused).
 */
public final class OwnerRateLimit {
    /** Limiting nobody. */
    public static final OwnerRateLimit OFF = new OwnerRateLimit(0);

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

    public OwnerRateLimit(double perSecond) {
        this.perSecond = perSecond;
        this.burst = Math.max(1, perSecond * 2);
    }

    /** Takes one token for {@code owner}: empty when it had one, otherwise the whole seconds until it has. */
    public OptionalLong take(String owner) {
        if (perSecond <= 0) {
            return OptionalLong.empty();
        }
        long now = System.nanoTime();
        Bucket bucket = buckets.computeIfAbsent(owner, o -> new Bucket(burst, now));
        synchronized (bucket) {
            bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.refilledAt) / 1e9 * perSecond);
            bucket.refilledAt = now;
            if (bucket.tokens >= 1) {
                bucket.tokens -= 1;
                return OptionalLong.empty();
            }
            return OptionalLong.of(Math.max(1, (long) Math.ceil((1 - bucket.tokens) / perSecond)));
        }
    }

    /** Why {@code owner}'s request is refused now, for a caller that may retry after {@code seconds}. */
    public String reason(String owner, long seconds) {
        return "owner " + owner + " may submit " + perSecond + " jobs per second (in bursts of twice that); retry "
                + "after " + seconds + " s with the same idempotency key";
    }
}
