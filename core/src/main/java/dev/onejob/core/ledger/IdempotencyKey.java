package dev.onejob.core.ledger;

import java.util.Optional;

/**
 * The caller's name for one intent: 1 to 255 printable ASCII characters (0x20 to 0x7E). The database checks the
 * same rule ({@code jobs_idempotency_key_check}); this class turns a bad key into a reason before any SQL runs.
 */
public final class IdempotencyKey {
    public static final int MAX_LENGTH = 255;

    private IdempotencyKey() {
    }

    /** The reason the key is unacceptable, or empty when it is fine. */
    public static Optional<String> problem(String key) {
        if (key == null || key.isEmpty()) {
            return Optional.of("the idempotency key is missing or empty");
        }
        if (key.length() > MAX_LENGTH) {
            return Optional.of("the idempotency key has " + key.length() + " characters; at most " + MAX_LENGTH
                    + " are allowed");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                return Optional.of(String.format("the idempotency key has a character outside printable ASCII "
                        + "(U+%04X at position %d)", (int) c, i));
            }
        }
        return Optional.empty();
    }

    public static String require(String key) {
        problem(key).ifPresent(reason -> {
            throw new IllegalArgumentException(reason);
        });
        return key;
    }
}
