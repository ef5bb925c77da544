package dev.onejob.core.ledger;

import java.util.EnumSet;
import java.util.Set;

/**
 * The life of one try at fulfilling a job. The allowed transitions live here as code and in the
 * {@code attempt_transitions} table, whose trigger enforces them in PostgreSQL; a test keeps the two equal.
 *
 * <p>A timeout is {@link #UNKNOWN}, never {@link #FAILED}: the request left and the provider may still be working.
 * {@link #DISCARDED} is an attempt that produced a result after it could no longer win.
 */
public enum AttemptStatus {
    PENDING,
    STARTING,
    UNKNOWN,
    SUCCEEDED,
    FAILED,
    CANCELLED,
    DISCARDED;

    private static final Set<AttemptStatus> LIVE = EnumSet.of(PENDING, STARTING, UNKNOWN);

    /** Live attempts block new ones: the partial unique index {@code attempts_job_id_live_idx} holds the same set. */
    public boolean isLive() {
        return LIVE.contains(this);
    }

    public static boolean allowed(AttemptStatus from, AttemptStatus to) {
        return switch (from) {
            // FAILED: the worker could not run its command (unknown provider or contract), nothing was sent.
            case PENDING -> to == STARTING || to == CANCELLED || to == FAILED;
            case STARTING -> to == SUCCEEDED || to == FAILED || to == UNKNOWN || to == CANCELLED || to == DISCARDED;
            case UNKNOWN -> to == SUCCEEDED || to == FAILED || to == CANCELLED || to == DISCARDED;
            // A cancelled or out-of-band-failed attempt whose answer still arrives: the answer is discarded.
            case CANCELLED, FAILED -> to == DISCARDED;
            case SUCCEEDED, DISCARDED -> false;
        };
    }
}
