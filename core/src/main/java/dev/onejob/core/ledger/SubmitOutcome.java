package dev.onejob.core.ledger;

import java.util.UUID;

/** What {@link LedgerStore#submit} did: the unique index on (owner_id, idempotency_key) decided. */
public sealed interface SubmitOutcome {
    /** A new job with its first attempt (and that attempt's command in the outbox). */
    record Created(Job job, Attempt firstAttempt) implements SubmitOutcome {
    }

    /** Same key, same fingerprint: the job that already exists. */
    record Replayed(Job job) implements SubmitOutcome {
    }

    /** The database refused the job's data (a constraint the code did not foresee): nothing was written. */
    record Refused(String reason) implements SubmitOutcome {
    }

    /** Same key, a different request: nothing was written. */
    record Conflict(UUID existingJobId, String existingFingerprint) implements SubmitOutcome {
    }
}
