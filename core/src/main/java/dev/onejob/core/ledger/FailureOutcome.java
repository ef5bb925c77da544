package dev.onejob.core.ledger;

import java.time.Duration;
import java.util.UUID;

/**
 * What a failed attempt led to: a retry on the same provider after a backoff, failover to the next eligible provider,
 * or the job FAILED.
 */
public sealed interface FailureOutcome {
    /** A definite refusal: a new attempt on the same provider, which may not start before {@code next.notBefore()}. */
    record RetryScheduled(UUID failedAttemptId, Attempt next, Duration backoff) implements FailureOutcome {
    }

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
