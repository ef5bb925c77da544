package dev.onejob.core.ledger;

import java.util.Objects;

/** Why an attempt failed: a stable code ({@code http_500}, {@code contract_violation}, ...), a message, and
 * whether trying the same provider again could help (429, 408). */
public record AttemptFailure(String code, String message, boolean retryable) {
    public AttemptFailure {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }
}
