package dev.onejob.core.ledger;

import dev.onejob.core.billing.Usage;
import dev.onejob.core.contract.FinishReason;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/**
 * A row of {@code attempts}: one try at fulfilling a job on one provider. {@code unknownAt} is when it was first made
 * UNKNOWN (null if never); {@code discardedResultSummary} is the discarded answer in brief, for a lost race;
 * {@code abandonAfter} is when its worker counts as vanished (the hard timeout plus a grace after its start, null
 * before it started): until then its call may still answer. {@code usage} and {@code costUsd} are what the provider
 * billed for its call (null until a completion reported it; the cost is null too when the provider has no prices).
 * {@code notBefore} is set on a retry: it may not start before then, the backoff after its predecessor's refusal.
 */
public record Attempt(UUID id, UUID jobId, int number, String provider, AttemptStatus status, long jobVersion,
                      Instant createdAt, Instant updatedAt, Instant startedAt, Instant softDeadline,
                      Instant finishedAt, String errorCode, String errorMessage, Boolean retryable,
                      String providerRequestId, LossReason lostReason, String discardedResultSha256,
                      String certificationOverride, Instant unknownAt, String discardedResultSummary,
                      Instant abandonAfter, Usage usage, BigDecimal costUsd, UUID startToken, Instant notBefore,
                      FinishReason finishReason) {

    /** An attempt whose provider has not said why it stopped (every attempt but a SUCCEEDED one). */
    public Attempt(UUID id, UUID jobId, int number, String provider, AttemptStatus status, long jobVersion,
                   Instant createdAt, Instant updatedAt, Instant startedAt, Instant softDeadline,
                   Instant finishedAt, String errorCode, String errorMessage, Boolean retryable,
                   String providerRequestId, LossReason lostReason, String discardedResultSha256,
                   String certificationOverride, Instant unknownAt, String discardedResultSummary,
                   Instant abandonAfter, Usage usage, BigDecimal costUsd, UUID startToken, Instant notBefore) {
        this(id, jobId, number, provider, status, jobVersion, createdAt, updatedAt, startedAt, softDeadline,
                finishedAt, errorCode, errorMessage, retryable, providerRequestId, lostReason, discardedResultSha256,
                certificationOverride, unknownAt, discardedResultSummary, abandonAfter, usage, costUsd, startToken,
                notBefore, null);
    }

    /** An attempt that waits for nothing before it starts. */
    public Attempt(UUID id, UUID jobId, int number, String provider, AttemptStatus status, long jobVersion,
                   Instant createdAt, Instant updatedAt, Instant startedAt, Instant softDeadline,
                   Instant finishedAt, String errorCode, String errorMessage, Boolean retryable,
                   String providerRequestId, LossReason lostReason, String discardedResultSha256,
                   String certificationOverride, Instant unknownAt, String discardedResultSummary,
                   Instant abandonAfter, Usage usage, BigDecimal costUsd, UUID startToken) {
        this(id, jobId, number, provider, status, jobVersion, createdAt, updatedAt, startedAt, softDeadline,
                finishedAt, errorCode, errorMessage, retryable, providerRequestId, lostReason, discardedResultSha256,
                certificationOverride, unknownAt, discardedResultSummary, abandonAfter, usage, costUsd, startToken,
                null);
    }

    /**
     * An attempt as the ledger holds it, without its start token: that names the one start a completion must echo,
     * and is never shown outside the ledger and the worker that wrote it.
     */
    public Attempt(UUID id, UUID jobId, int number, String provider, AttemptStatus status, long jobVersion,
                   Instant createdAt, Instant updatedAt, Instant startedAt, Instant softDeadline,
                   Instant finishedAt, String errorCode, String errorMessage, Boolean retryable,
                   String providerRequestId, LossReason lostReason, String discardedResultSha256,
                   String certificationOverride, Instant unknownAt, String discardedResultSummary,
                   Instant abandonAfter, Usage usage, BigDecimal costUsd) {
        this(id, jobId, number, provider, status, jobVersion, createdAt, updatedAt, startedAt, softDeadline,
                finishedAt, errorCode, errorMessage, retryable, providerRequestId, lostReason, discardedResultSha256,
                certificationOverride, unknownAt, discardedResultSummary, abandonAfter, usage, costUsd, null);
    }

    /** An attempt nothing was billed for (yet). */
    public Attempt(UUID id, UUID jobId, int number, String provider, AttemptStatus status, long jobVersion,
                   Instant createdAt, Instant updatedAt, Instant startedAt, Instant softDeadline,
                   Instant finishedAt, String errorCode, String errorMessage, Boolean retryable,
                   String providerRequestId, LossReason lostReason, String discardedResultSha256,
                   String certificationOverride, Instant unknownAt, String discardedResultSummary,
                   Instant abandonAfter) {
        this(id, jobId, number, provider, status, jobVersion, createdAt, updatedAt, startedAt, softDeadline,
                finishedAt, errorCode, errorMessage, retryable, providerRequestId, lostReason, discardedResultSha256,
                certificationOverride, unknownAt, discardedResultSummary, abandonAfter, null, null);
    }
}
