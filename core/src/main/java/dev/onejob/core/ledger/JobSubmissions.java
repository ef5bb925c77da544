package dev.onejob.core.ledger;

import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseException;
import java.util.List;

/**
 * Takes new jobs into the ledger: each job with its first attempt and that attempt's command, or the answer why not
 * (the unique key on (owner_id, idempotency_key) decides, outcomes are types, not exceptions). Owns the transaction
 * and the fallback when PostgreSQL refuses a batch; the statements are {@link JobIntake}'s.
 */
public final class JobSubmissions {
    private final Database database;

    public JobSubmissions(Database database) {
        this.database = database;
    }

    /** Creates the job with its first attempt and that attempt's command, or says why it did not. */
    public SubmitOutcome submit(NewJob newJob) {
        return database.inTransaction(connection -> JobIntake.submit(connection, List.of(newJob)).get(0));
    }

    /**
     * Submits many jobs (a poll's worth of Kafka records) in one transaction, with one statement per table
     * ({@link JobIntake}). Outcomes come back in the order given, each what the job would get if submitted alone.
     * When PostgreSQL refuses the batch, each job is tried in a transaction of its own, so one bad job cannot sink
     * the others: it comes back {@link SubmitOutcome.Refused} with the reason.
     */
    public List<SubmitOutcome> submitBatch(List<NewJob> jobs) {
        try {
            return database.inTransaction(connection -> JobIntake.submit(connection, jobs));
        } catch (RuntimeException batchFailed) {
            return jobs.stream().map(this::submitOrRefused).toList();
        }
    }

    /**
     * One job alone; {@link SubmitOutcome.Refused} when PostgreSQL rejects its data
     * ({@link DatabaseException#isDataRefusal}), rethrown when it is down.
     */
    private SubmitOutcome submitOrRefused(NewJob job) {
        try {
            return submit(job);
        } catch (DatabaseException e) {
            if (DatabaseException.isDataRefusal(e)) {
                return new SubmitOutcome.Refused("PostgreSQL refused to store the request: " + e.getMessage());
            }
            throw e;
        }
    }
}
