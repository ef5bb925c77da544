package dev.onejob.core.ledger;

import dev.onejob.core.events.WireName;

/**
 * Why a result was discarded; the wire names ({@link WireName}) appear in {@code attempts.lost_reason} and on
 * {@code race-audit}.
 */
public enum LossReason implements WireName {
    /** Another attempt completed first, or the job's version moved on. */
    LOST_CAS,
    /** The attempt had been cancelled out of band. */
    ATTEMPT_CANCELLED,
    /** The attempt had been resolved FAILED out of band (its answer came after all). */
    ATTEMPT_FAILED,
    /** The job had been cancelled. */
    JOB_CANCELLED;

    public static LossReason fromWireName(String name) {
        return WireName.find(LossReason.class, name)
                .orElseThrow(() -> new IllegalArgumentException("unknown loss reason: " + name));
    }
}
