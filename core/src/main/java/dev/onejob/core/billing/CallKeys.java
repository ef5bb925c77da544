package dev.onejob.core.billing;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The {@code Idempotency-Key} onejob sends with each provider call, and what it says about the call on the
 * provider's bill. An attempt's call carries the attempt id, a random (version 4) UUID. A certification call carries
 * a name-based (version 3) UUID made by {@link #certification()}: it is billed like any call but is no attempt, and
 * reconciliation counts it apart instead of reporting it as billed without an attempt.
 */
public final class CallKeys {
    private static final String CERTIFICATION = "onejob-certification:";

    private CallKeys() {
    }

    /** A fresh key for one certification call. */
    public static UUID certification() {
        return UUID.nameUUIDFromBytes((CERTIFICATION + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8));
    }

    /** Whether {@code key} is a certification call's (a version 3 UUID); false for anything else. */
    public static boolean isCertification(String key) {
        if (key == null) {
            return false;
        }
        try {
            return UUID.fromString(key).version() == 3;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
