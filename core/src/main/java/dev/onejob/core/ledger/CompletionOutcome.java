package dev.onejob.core.ledger;

import java.util.UUID;

/** What a successful answer did to the ledger: the compare-and-swap's row count, told in types. */
public sealed interface CompletionOutcome {
    /** The CAS took: the job is SUCCEEDED with this attempt's result. */
    record Won(UUID jobId, UUID attemptId) implements CompletionOutcome {
    }

    /**
     * The CAS found the job moved on: the result was discarded. {@code winner} is the attempt that completed the job,
     * or null when none did (the job was cancelled or failed). {@code firstReport} is false for a redelivery of a
     * completion already recorded as lost.
     */
    record Lost(UUID jobId, UUID attemptId, UUID winner, LossReason reason, boolean firstReport)
            implements CompletionOutcome {
    }

    /** A redelivery of the winner's completion: nothing changed. */
    record AlreadyApplied(UUID jobId, UUID attemptId) implements CompletionOutcome {
    }

    /** The attempt is not in the ledger, or belongs to another job: nothing changed. */
    record Rejected(UUID attemptId, String reason) implements CompletionOutcome {
    }
}
