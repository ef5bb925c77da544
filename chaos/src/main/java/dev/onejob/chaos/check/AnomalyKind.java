package dev.onejob.chaos.check;

import dev.onejob.core.events.WireName;

/**
 * Every way a chaos run's recorded history can break an invariant of onejob, with the name the report prints (its
 * {@link WireName}, e.g. {@code duplicate-job}).
 * Each kind is found by exactly one check in {@link IntentChecks}, {@link ResultChecks}, {@link AttemptChecks} or
 * {@link BillingChecks}.
 */
public enum AnomalyKind implements WireName {
    /** More than one job row for one (owner, key). */
    DUPLICATE_JOB,
    /** Evidence that an intent was accepted (a 2xx, an ack, an outcome naming a job), but no job row. */
    LOST_INTENT,
    /** An answer (HTTP or job-request-outcomes) naming a job other than the database's job for the intent. */
    ANSWER_NAMES_OTHER_JOB,
    /** A submission with a different fingerprint than its intent's first one, answered as accepted. */
    CONFLICT_ACCEPTED,
    /** A job row whose (owner, key) no client ever submitted. */
    JOB_WITHOUT_SUBMISSION,
    /** A poison record acknowledged on job-requests that is not on job-requests.dlq with a reason. */
    POISON_NOT_DEAD_LETTERED,
    /** A poison record dead-lettered more often than it was sent. */
    POISON_DEAD_LETTERED_TWICE,
    /** More than one job-results record for one job. */
    DUPLICATE_RESULT,
    /** A finished job without a job-results record. */
    MISSING_RESULT,
    /** A job-results record for a job that is not finished (or not there) in the database. */
    RESULT_FOR_UNFINISHED_JOB,
    /** A job-results record whose status is not the job's final status in the database. */
    RESULT_STATUS_DIFFERS,
    /** A succeeded job whose published or stored result is not what its winning attempt returned. */
    RESULT_NOT_WINNERS,
    /** A discarded result (a losing SUCCEEDED completion) without a race-audit record. */
    RACE_AUDIT_MISSING,
    /** A discarded result with more than one race-audit record. */
    RACE_AUDIT_DUPLICATED,
    /** A race-audit record whose losing attempt is its job's winner. */
    RACE_AUDIT_NAMES_WINNER,
    /** More than one provider call with one attempt id as its Idempotency-Key. */
    DOUBLE_CALL,
    /** A provider call for an attempt the database never started. */
    CALL_WITHOUT_START,
    /**
     * A started attempt that ended as if its request had left (UNKNOWN, FAILED with a provider's answer, or resolved
     * out of band) while no provider ever saw a call for it, and no worker was killed right after it started: a
     * phantom UNKNOWN, which invites a failover for a request nobody sent.
     */
    OUTCOME_WITHOUT_CALL,
    /**
     * A provider sent a usable answer in time (billed), and no SUCCEEDED completion for its attempt ever reached
     * attempt-completions, while no worker was killed or frozen during the attempt: a paid answer lost.
     */
    PAID_ANSWER_LOST,
    /**
     * A job paid more than once without a reason: an earlier paid attempt had a usable answer (no definite failure
     * of that answer calls for the next attempt), no operator resolved it, and no worker was lost while it was live.
     * A second paid call after a contract violation or an unstorable answer is designed failover, and not this.
     */
    SECOND_PAID_CALL,
    /** A charge on a provider's bill that no attempt explains (billing reconciliation). */
    BILLED_WITHOUT_ATTEMPT,
    /** An attempt the provider's bill charges more than once (billing reconciliation). */
    BILLED_TWICE,
    /** An attempt whose tokens or cost in the ledger differ from the provider's charge (billing reconciliation). */
    BILLED_COST_MISMATCH,
    /** Usage the ledger recorded for an attempt the provider never charged (billing reconciliation). */
    RECORDED_NOT_BILLED,
    /**
     * A job FAILED after a definite refusal that ran nothing (429, 503, 529, 408, a connection refused) while the
     * refusing provider's retry policy allowed it another attempt: the intent ended though a retry remained.
     */
    FAILED_WITH_RETRIES_LEFT,
    /** Two attempts of one job live at the same time. */
    OVERLAPPING_ATTEMPTS,
    /** After the drain: a job or attempt still waiting for a component, not for a person. */
    STUCK,
    /** A started attempt without an attempt-commands record. */
    ATTEMPT_COMMAND_MISSING,
    /** A record on a checked topic that could not be read, so the checks could not see it. */
    UNREADABLE_RECORD
}
