package dev.onejob.core.ledger;

import java.util.Objects;

/**
 * Why an attempt failed: a stable code ({@code http_500}, {@code contract_violation}, ...), a message, whether
 * trying the same provider again could help (429, 408), and for a contract violation the answer as received, kept
 * for the audit.
 */
public record AttemptFailure(String code, String message, boolean retryable, String offendingAnswer) {
    public AttemptFailure {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }

    public AttemptFailure(String code, String message, boolean retryable) {
        this(code, message, retryable, null);
    }
}
