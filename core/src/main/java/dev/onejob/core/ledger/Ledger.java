package dev.onejob.core.ledger;

import dev.onejob.core.db.Database;

/**
 * The ledger of {@code jobs} and {@code attempts} over one database, by concern: submissions, starts, completions,
 * failures, people's interventions and lookups. Holds no SQL and no state of its own; each part owns its statements,
 * and every change runs in one transaction of that part, the job row locked before its attempts
 * ({@link LedgerSteps}). The database decides every race: the unique key on (owner_id, idempotency_key) for
 * submissions, the partial unique index for "one live attempt", the version compare-and-swap for completion.
 *
 * @param submissions new jobs with their first attempts
 * @param starts PENDING -> STARTING -> UNKNOWN, and the deadlines of running calls
 * @param completions providers' answers, by compare-and-swap
 * @param failures failed attempts: retry, failover or the job FAILED
 * @param interventions the fallback button, operators' resolutions, cancelling a job
 * @param lookups one job or attempt, live or archived
 */
public record Ledger(JobSubmissions submissions, AttemptStarts starts, AttemptCompletions completions,
                     AttemptFailures failures, JobInterventions interventions, JobLookups lookups) {
    public Ledger(Database database) {
        this(new JobSubmissions(database), new AttemptStarts(database), new AttemptCompletions(database),
                new AttemptFailures(database), new JobInterventions(database), new JobLookups(database));
    }
}
