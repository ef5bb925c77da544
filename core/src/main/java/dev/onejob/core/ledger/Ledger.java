package dev.onejob.core.ledger;

import dev.onejob.core.db.Database;

/**
 * The ledger of {@code jobs} and {@code attempts} over one database, by concern: submissions, starts, completions,
 * failures, people's interventions and lookups. Holds no SQL and no state of its own; each part owns its statements,
 * and every change runs in one transaction of that part, the job row locked before its attempts
 * ({@link LedgerSteps}). The database decides every race: the unique key on (owner_id, idempotency_key) for
 * submissions, the partial unique index for "one live attempt", the version compare-and-swap for completion.
 */
public final class Ledger {
    private final JobSubmissions submissions;
    private final AttemptStarts starts;
    private final AttemptCompletions completions;
    private final AttemptFailures failures;
    private final JobInterventions interventions;
    private final JobLookups lookups;

    public Ledger(Database database) {
        this.submissions = new JobSubmissions(database);
        this.starts = new AttemptStarts(database);
        this.completions = new AttemptCompletions(database);
        this.failures = new AttemptFailures(database);
        this.interventions = new JobInterventions(database);
        this.lookups = new JobLookups(database);
    }

    /** New jobs with their first attempts. */
    public JobSubmissions submissions() {
        return submissions;
    }

    /** PENDING -> STARTING -> UNKNOWN, and the deadlines of running calls. */
    public AttemptStarts starts() {
        return starts;
    }

    /** Providers' answers, by compare-and-swap. */
    public AttemptCompletions completions() {
        return completions;
    }

    /** Failed attempts: retry, failover or the job FAILED. */
    public AttemptFailures failures() {
        return failures;
    }

    /** The fallback button, operators' resolutions, cancelling a job. */
    public JobInterventions interventions() {
        return interventions;
    }

    /** One job or attempt, live or archived. */
    public JobLookups lookups() {
        return lookups;
    }
}
