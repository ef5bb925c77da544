package dev.onejob.core.ledger;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One thing an operator did to a job (the {@code operator_actions} table): who ({@code actor}, the token's owner),
 * what ({@code action}: {@code resolve_failed}, {@code resolve_cancelled}), on which attempt, why, and when.
 */
public record OperatorAction(UUID jobId, UUID attemptId, String actor, String action, String reason,
                             Instant createdAt) {
    public static final String RESOLVE_FAILED = "resolve_failed";
    public static final String RESOLVE_CANCELLED = "resolve_cancelled";

    public OperatorAction {
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(reason, "reason");
    }

    /** An action about to be taken (its job and time are the ledger's to fill in). */
    public static OperatorAction of(String actor, String action, String reason) {
        return new OperatorAction(null, null, actor, action, reason, null);
    }
}
