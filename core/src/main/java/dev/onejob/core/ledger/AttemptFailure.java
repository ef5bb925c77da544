package dev.onejob.core.ledger;

import java.util.Objects;

/**
 * Why an attempt failed: a stable code ({@code http_500}, {@code contract_violation}, ...), a message, whether
 * trying the same provider again could help (429, 408), for a contract violation the answer as received, kept
 * for the audit, and whether the attempt was never started ({@code unstarted}: the worker could not run its
 * command, so no request left; only such a failure may end a PENDING attempt).
 */
public record AttemptFailure(String code, String message, boolean retryable, String offendingAnswer,
                             boolean unstarted) {
    public AttemptFailure {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }

    public AttemptFailure(String code, String message, boolean retryable, String offendingAnswer) {
        this(code, message, retryable, offendingAnswer, false);
    }

    public AttemptFailure(String code, String message, boolean retryable) {
        this(code, message, retryable, null, false);
    }
}
