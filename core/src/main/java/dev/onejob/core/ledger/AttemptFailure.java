package dev.onejob.core.ledger;

import java.time.Duration;
import java.util.Objects;

/**
 * Why an attempt failed: a stable code ({@code http_500}, {@code contract_violation}, ...), a message, whether
 * trying the same provider again could help ({@code retryable}: a definite refusal that ran nothing, such as a 429 or
 * a connection refused), for a contract violation the answer as received, kept for the audit, whether the attempt
 * never left ({@code unsent}: no connection, or a command the worker could not run at all; only such a failure may
 * end a PENDING attempt, and it is stored as {@code request_sent = false}), and when the provider asked to be tried
 * again ({@code retryAfter}, its {@code Retry-After} or rate-limit reset; null when it said nothing).
 */
public record AttemptFailure(String code, String message, boolean retryable, String offendingAnswer,
                             boolean unsent, Duration retryAfter) {
    /**
     * The code of an answer larger than any bound its call allows: it was paid for, and another provider would most
     * likely write one as large, so the job fails without failover.
     */
    public static final String ANSWER_TOO_LARGE = "answer_too_large";

    public AttemptFailure {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }

    public AttemptFailure(String code, String message, boolean retryable, String offendingAnswer,
                          boolean unsent) {
        this(code, message, retryable, offendingAnswer, unsent, null);
    }

    public AttemptFailure(String code, String message, boolean retryable, String offendingAnswer) {
        this(code, message, retryable, offendingAnswer, false, null);
    }

    public AttemptFailure(String code, String message, boolean retryable) {
        this(code, message, retryable, null, false, null);
    }

    /** Whether the job may go on to another provider after this failure. */
    public boolean allowsFailover() {
        return !ANSWER_TOO_LARGE.equals(code);
    }
}
