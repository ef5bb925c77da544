package dev.onejob.core.ledger;

import java.util.UUID;

/** What {@link JobSubmissions#submit} did: the unique index on (owner_id, idempotency_key) decided. */
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

    /**
     * The owner's limit refuses a new job: nothing was written, and the key stays free (a later request with it is
     * judged afresh). {@code limit} says which: the spend cap (HTTP 402) or the live attempts (HTTP 429).
     */
    record OverLimit(Limit limit, String reason) implements SubmitOutcome {
        public enum Limit { SPEND_CAP, LIVE_ATTEMPTS }
    }

    /** Same key, a different request: nothing was written. */
    record Conflict(UUID existingJobId, String existingFingerprint) implements SubmitOutcome {
    }
}
