package dev.onejob.core.ledger;

import java.time.Instant;
import java.util.UUID;

/**
 * A row of {@code attempts}: one try at fulfilling a job on one provider. {@code unknownAt} is when it was first made
 * UNKNOWN (null if never); {@code discardedResultSummary} is the discarded answer in brief, for a lost race;
 * {@code abandonAfter} is when its worker counts as vanished (the hard timeout plus a grace after its start, null
 * before it started): until then its call may still answer.
 */
public record Attempt(UUID id, UUID jobId, int number, String provider, AttemptStatus status, long jobVersion,
                      Instant createdAt, Instant updatedAt, Instant startedAt, Instant softDeadline,
                      Instant finishedAt, String errorCode, String errorMessage, Boolean retryable,
                      String providerRequestId, LossReason lostReason, String discardedResultSha256,
                      String certificationOverride, Instant unknownAt, String discardedResultSummary,
                      Instant abandonAfter) {
}
