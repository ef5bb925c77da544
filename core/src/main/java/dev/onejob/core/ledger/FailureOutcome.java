package dev.onejob.core.ledger;

import java.util.UUID;

/** What a failed attempt led to: failover to the next eligible provider, or the job FAILED. */
public sealed interface FailureOutcome {
    record FailedOver(UUID failedAttemptId, Attempt next) implements FailureOutcome {
    }

    record JobFailed(UUID jobId, UUID failedAttemptId) implements FailureOutcome {
    }

    /** The attempt was already FAILED: a redelivery, nothing changed. */
    record AlreadyApplied(UUID attemptId) implements FailureOutcome {
    }

    /** The attempt cannot fail from where it is (succeeded, cancelled, discarded, never started) or is unknown. */
    record Rejected(UUID attemptId, String reason) implements FailureOutcome {
    }
}
