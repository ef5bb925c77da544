package dev.onejob.core.ledger;

import java.util.List;
import java.util.UUID;

/** What {@link JobInterventions#newAttempt} did. */
public sealed interface NewAttemptOutcome {
    record Created(Attempt attempt) implements NewAttemptOutcome {
    }

    /** The partial unique index refused: this attempt is still PENDING, STARTING or UNKNOWN. */
    record LiveAttemptExists(UUID attemptId, AttemptStatus status) implements NewAttemptOutcome {
    }

    record JobFinished(JobStatus status) implements NewAttemptOutcome {
    }

    record JobNotFound() implements NewAttemptOutcome {
    }

    /** The provider is neither the job's target nor one of its fallbacks. */
    record ProviderNotAllowed(String provider, List<String> allowed) implements NewAttemptOutcome {
    }
}
