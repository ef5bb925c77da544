package dev.onejob.simulator;

import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The one {@link Behaviour} that combines others: {@code then} for a {@code share} of the requests, {@code otherwise}
 * for the rest, e.g. 5% of 429s among answers of a lognormal delay. Which one a request meets is a pure function of
 * its {@code Idempotency-Key} (a hash), so a request sent again with its key meets the same one; a request without a
 * key draws at random. Resolved to its choice by {@link BehaviourRules#resolve}.
 */
public record Mix(double share, Behaviour then, Behaviour otherwise) implements Behaviour {
    public Mix {
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException("share must be within 0..1, was " + share);
        }
        Objects.requireNonNull(then, "then");
        Objects.requireNonNull(otherwise, "otherwise");
    }

    /** The behaviour the request with {@code idempotencyKey} meets. */
    Behaviour choose(String idempotencyKey) {
        double point = idempotencyKey == null ? ThreadLocalRandom.current().nextDouble()
                : (mixed(idempotencyKey.hashCode() * 0x9E3779B97F4A7C15L) >>> 11) * 0x1.0p-53;
        return point < share ? then : otherwise;
    }

    private static long mixed(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
