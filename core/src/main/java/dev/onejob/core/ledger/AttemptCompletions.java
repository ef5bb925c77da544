package dev.onejob.core.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseException;
import java.util.List;
import java.util.UUID;

/**
 * Applies providers' answers to the ledger: the compare-and-swap on the job's version decides who won, a lost race
 * is discarded and audited, a redelivery is answered AlreadyApplied. Owns the transactions, the order of a job's
 * answers and the fallback when PostgreSQL refuses a set; the statements are {@link CompletionBatch}'s.
 */
public final class AttemptCompletions {
    private final Database database;

    public AttemptCompletions(Database database) {
        this.database = database;
    }

    /**
     * A provider answered with a result. The compare-and-swap on the job's version decides: won, lost (the result is
     * discarded, never merged, and a race-audit event is queued once), or already applied (a redelivery). A
     * redelivery that carries a different result than the one recorded for that attempt is rejected.
     */
    public CompletionOutcome complete(UUID jobId, UUID attemptId, JsonNode result, String providerRequestId) {
        return complete(jobId, attemptId, null, result, providerRequestId);
    }

    /**
     * The same, for a completion that names the provider it ran on: one that names another provider than the
     * attempt's is rejected by the compare-and-swap's own statement (no read before it). Null checks no provider.
     */
    public CompletionOutcome complete(UUID jobId, UUID attemptId, String provider, JsonNode result,
                                      String providerRequestId) {
        AttemptAnswer answer = new AttemptAnswer(jobId, attemptId, provider, result, providerRequestId);
        return database.inTransaction(connection -> CompletionBatch.complete(connection, List.of(answer)).get(0));
    }

    /**
     * Applies a poll's successful answers with one compare-and-swap statement per set ({@link CompletionBatch}):
     * outcomes come back in the order given, each what {@link #complete} would answer for it alone, in this order.
     * Answers for the same job go in successive sets, each its own transaction, so a job's answers are applied in
     * the order they came. When PostgreSQL refuses a set for its data, each answer of that set is tried in a
     * transaction of its own, so one bad answer cannot sink the others: it comes back
     * {@link CompletionOutcome.Rejected} with PostgreSQL's reason.
     */
    public List<CompletionOutcome> completeAll(List<AttemptAnswer> answers) {
        CompletionOutcome[] outcomes = new CompletionOutcome[answers.size()];
        for (List<Integer> set : JobRounds.of(answers, AttemptAnswer::jobId)) {
            List<AttemptAnswer> members = set.stream().map(answers::get).toList();
            List<CompletionOutcome> applied;
            try {
                applied = database.inTransaction(connection -> CompletionBatch.complete(connection, members));
            } catch (DatabaseException batchFailed) {
                if (!DatabaseException.isDataRefusal(batchFailed)) {
                    throw batchFailed;
                }
                applied = members.stream().map(this::completeOrRefused).toList();
            }
            for (int k = 0; k < set.size(); k++) {
                outcomes[set.get(k)] = applied.get(k);
            }
        }
        return List.of(outcomes);
    }

    private CompletionOutcome completeOrRefused(AttemptAnswer answer) {
        try {
            return database.inTransaction(connection -> CompletionBatch.complete(connection, List.of(answer)).get(0));
        } catch (DatabaseException e) {
            if (DatabaseException.isDataRefusal(e)) {
                return new CompletionOutcome.Rejected(answer.attemptId(),
                        "PostgreSQL refused to store it: " + e.getMessage());
            }
            throw e;
        }
    }
}
