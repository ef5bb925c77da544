package dev.onejob.core.ledger;

/** Why a result was discarded; the wire names appear in {@code attempts.lost_reason} and on {@code race-audit}. */
public enum LossReason {
    /** Another attempt completed first, or the job's version moved on. */
    LOST_CAS("lost-cas"),
    /** The attempt had been cancelled out of band. */
    ATTEMPT_CANCELLED("attempt-cancelled"),
    /** The attempt had been resolved FAILED out of band (its answer came after all). */
    ATTEMPT_FAILED("attempt-failed"),
    /** The job had been cancelled. */
    JOB_CANCELLED("job-cancelled");

    private final String wireName;

    LossReason(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static LossReason fromWireName(String name) {
        for (LossReason reason : values()) {
            if (reason.wireName.equals(name)) {
                return reason;
            }
        }
        throw new IllegalArgumentException("unknown loss reason: " + name);
    }
}
