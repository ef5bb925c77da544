package dev.onejob.core.ledger;

/**
 * The job's status as users see it; it follows its attempts. {@link #NEEDS_ACTION} is a job with no live attempt
 * that is not finished (its attempt was cancelled out of band): the owner decides, with the fallback button or a
 * cancel. The {@code job_transitions} table and its trigger enforce the same transitions in PostgreSQL.
 */
public enum JobStatus {
    QUEUED,
    RUNNING,
    UNKNOWN,
    NEEDS_ACTION,
    SUCCEEDED,
    FAILED,
    CANCELLED;

    public boolean isFinished() {
        return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }

    public static boolean allowed(JobStatus from, JobStatus to) {
        return switch (from) {
            case QUEUED -> to == RUNNING || to == CANCELLED || to == FAILED;
            case RUNNING -> to == UNKNOWN || to == SUCCEEDED || to == QUEUED || to == NEEDS_ACTION
                    || to == FAILED || to == CANCELLED;
            case UNKNOWN -> to == SUCCEEDED || to == QUEUED || to == NEEDS_ACTION || to == FAILED || to == CANCELLED;
            case NEEDS_ACTION -> to == QUEUED || to == CANCELLED;
            case SUCCEEDED, FAILED, CANCELLED -> false;
        };
    }
}
