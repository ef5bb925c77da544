package dev.onejob.core.ledger;

import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.events.JobResult;
import dev.onejob.core.events.RaceAudit;
import java.time.Instant;
import java.util.List;

/**
 * The events the ledger announces through the outbox ({@code attempt-commands}, {@code job-results},
 * {@code race-audit}), made from its rows. The wire records themselves, with their readers and writers, are in
 * {@code dev.onejob.core.events}.
 */
public final class LedgerEvents {
    private LedgerEvents() {
    }

    /** What a worker needs to make one call: the attempt's identity and the job's request. */
    public static AttemptCommand attemptCommand(Job job, Attempt attempt) {
        return new AttemptCommand(attempt.id(), job.id(), job.ownerId(), attempt.number(), attempt.provider(),
                attempt.jobVersion(), job.contract(), job.request(), attempt.createdAt());
    }

    /** One record per finished job: the result or the final error, and the attempt history in brief. */
    public static JobResult jobResult(Job job, List<Attempt> attempts) {
        return new JobResult(job.id(), job.ownerId(), job.idempotencyKey(), job.status().name(), job.completedBy(),
                job.result(), job.errorCode() == null ? null : new JobResult.Error(job.errorCode(), job.errorMessage()),
                attempts.stream().map(a -> new JobResult.AttemptBrief(a.id(), a.number(), a.provider(),
                        a.status().name(), a.errorCode())).toList(), job.finishedAt());
    }

    /** One record per discarded result, for analysts; {@code winner} is null when no attempt won. */
    public static RaceAudit raceAudit(Job job, Attempt winner, Attempt loser, LossReason reason,
                                      String discardedResultSha256, Instant detectedAt) {
        return new RaceAudit(job.id(), job.ownerId(), winner == null ? null : summary(winner), summary(loser),
                reason.wireName(), discardedResultSha256, detectedAt);
    }

    private static RaceAudit.AttemptSummary summary(Attempt attempt) {
        return new RaceAudit.AttemptSummary(attempt.id(), attempt.number(), attempt.provider(), attempt.startedAt(),
                attempt.finishedAt(), attempt.costUsd());
    }
}
