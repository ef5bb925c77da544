package dev.onejob.reconciler;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.db.Database;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.NewAttemptOutcome;
import dev.onejob.core.ledger.NewJob;
import dev.onejob.core.ledger.OperatorAction;
import dev.onejob.core.ledger.SubmitOutcome;
import dev.onejob.testing.SqlCounts;
import dev.onejob.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Ledger states and completion records for the reconciler's tests, built through the real store. */
final class ReconcilerFixture {
    static final JsonNode RESULT_A = Json.parse("{\"sentiment\":\"positive\",\"summary\":\"from primary\"}");
    static final JsonNode RESULT_B = Json.parse("{\"sentiment\":\"positive\",\"summary\":\"from backup\"}");

    final Database database;
    final Ledger ledger;

    ReconcilerFixture(Database database) {
        this.database = database;
        this.ledger = new Ledger(database);
    }

    Attempt startedJob(String owner) {
        Attempt first = pendingJob(owner);
        ledger.starts().start(first.id(), Duration.ofSeconds(30));
        return first;
    }

    /** A job whose first attempt (primary, backup after it) no worker has started. */
    Attempt pendingJob(String owner) {
        SubmitOutcome.Created created = (SubmitOutcome.Created) ledger.submissions().submit(new NewJob(owner,
                "k-" + UUID.randomUUID(), Json.parse("{\"contract\":\"sentiment\",\"variables\":{\"text\":\"x\"},"
                + "\"target\":\"primary\",\"fallbacks\":[\"backup\"]}"), "sentiment", "primary", List.of("backup")));
        return created.firstAttempt();
    }

    /** A (primary) UNKNOWN then cancelled out of band, B (backup) started. */
    Attempt[] cancelledThenFallback() {
        Attempt a = startedJob("owner-a");
        ledger.starts().markUnknown(a.id());
        ledger.interventions().resolveCancelled(a.id(),
                OperatorAction.of("test", OperatorAction.RESOLVE_CANCELLED, "operator: outage"));
        Attempt b = assertInstanceOf(NewAttemptOutcome.Created.class, ledger.interventions().newAttempt(a.jobId(), "backup")).attempt();
        ledger.starts().start(b.id(), Duration.ofSeconds(30));
        return new Attempt[] {a, b};
    }

    /** The SUCCEEDED completion the worker that started {@code attempt} would send, with its start token. */
    static AttemptCompletion succeeded(Attempt attempt, JsonNode result) {
        return new AttemptCompletion(attempt.id(), attempt.jobId(), AttemptCompletion.Outcome.SUCCEEDED, result, null,
                null, attempt.provider(), "model", "req-" + attempt.number(), 12, Instant.now(), null, null,
                startToken(attempt.id()));
    }

    /** The FAILED completion the worker that started {@code attempt} (if anyone did) would send. */
    static AttemptCompletion failed(Attempt attempt, String code, boolean sent) {
        return new AttemptCompletion(attempt.id(), attempt.jobId(), AttemptCompletion.Outcome.FAILED, null,
                new AttemptCompletion.Error(code, code + " from the provider", false, sent, null,
                        code.equals("contract_violation") ? "{\"sentiment\":\"positive\",\"confidence\":1}" : null),
                null, attempt.provider(), "model", null, 12, Instant.now(), null, null, startToken(attempt.id()));
    }

    /** The token the attempt was started with, as only the worker that started it knows it; null when unstarted. */
    static UUID startToken(UUID attemptId) {
        return new Ledger(Database.wrap(TestDatabase.shared().dataSource())).lookups()
                .attempt(attemptId).map(Attempt::startToken).orElse(null);
    }

    long outbox(String topic, UUID jobId) {
        return count("SELECT count(*) FROM outbox WHERE topic = ? AND message_key = ?", topic, jobId.toString());
    }

    long count(String sql, Object... args) {
        return database.inTransaction(connection -> SqlCounts.queryLong(connection, sql, args));
    }
}
