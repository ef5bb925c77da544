package dev.onejob.core.billing;

import java.math.BigDecimal;
import java.time.LocalDate;

/**
 * What one owner may spend and run: a spend cap per period (null = none) and a maximum of live attempts (null =
 * none). From the owners file ({@code dev.onejob.core.config.OwnerPolicies}). Both are checked when a job is created,
 * never after: a job already accepted runs to its end, and what it may still cost is reserved when it is accepted.
 *
 * <p>Live attempts are counted as the owner's unfinished jobs that were accepted under a limit: each holds at most
 * one live attempt, and a job in NEEDS_ACTION counts too, since its owner may start one with the fallback button.
 */
public record OwnerLimits(BigDecimal spendCapUsd, Period period, Integer maxLiveAttempts) {
    /** No cap and no limit. */
    public static final OwnerLimits NONE = new OwnerLimits(null, Period.MONTH, null);

    /** The span a spend cap covers, in UTC: the calendar day or the calendar month. */
    public enum Period {
        DAY, MONTH;

        /** The first day of the period that holds {@code today}. */
        public LocalDate start(LocalDate today) {
            return this == DAY ? today : today.withDayOfMonth(1);
        }
    }

    public OwnerLimits {
        if (spendCapUsd != null && spendCapUsd.signum() < 0) {
            throw new IllegalArgumentException("a spend cap must not be negative");
        }
        if (maxLiveAttempts != null && maxLiveAttempts < 0) {
            throw new IllegalArgumentException("max_live_attempts must not be negative");
        }
        if (period == null) {
            throw new IllegalArgumentException("a period is needed");
        }
    }

    /** Whether anything is limited (if not, creating a job checks nothing). */
    public boolean limitsAnything() {
        return spendCapUsd != null || maxLiveAttempts != null;
    }
}
