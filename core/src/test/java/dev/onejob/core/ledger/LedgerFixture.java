package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.db.Database;
import dev.onejob.core.json.Json;
import dev.onejob.testing.SqlCounts;
import dev.onejob.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/** Builds ledger states for the tests through the store itself, and counts rows straight from the tables. */
final class LedgerFixture {
    static final Duration SOFT_TIMEOUT = Duration.ofSeconds(10);

    final Database database = Database.wrap(TestDatabase.shared().dataSource());
    final Ledger store = new Ledger(database);

    static JsonNode request(String text) {
        return Json.parse("{\"contract\":\"sentiment\",\"variables\":{\"text\":" + Json.MAPPER.valueToTree(text)
                + "},\"target\":\"primary\",\"fallbacks\":[\"backup\"]}");
    }

    static NewJob newJob(String owner, String key, String text) {
        return new NewJob(owner, key, request(text), "sentiment", "primary", List.of("backup"));
    }

    static String freshKey() {
        return "key-" + UUID.randomUUID();
    }

    SubmitOutcome.Created submitted(String owner) {
        return assertInstanceOf(SubmitOutcome.Created.class, store.submissions().submit(newJob(owner, freshKey(), "I loved it")));
    }

    /** A new job of {@code owner}'s whose first attempt a worker started: STARTING, with {@link #SOFT_TIMEOUT}. */
    Attempt startedFirstAttempt(String owner) {
        Attempt first = submitted(owner).firstAttempt();
        store.starts().start(first.id(), SOFT_TIMEOUT);
        return first;
    }

    /** A job whose first attempt A (primary) is UNKNOWN, then cancelled out of band; B (backup) is created. */
    Attempt[] cancelledThenFallback() {
        SubmitOutcome.Created created = submitted("owner-a");
        Attempt a = created.firstAttempt();
        assertInstanceOf(TransitionOutcome.Applied.class, store.starts().start(a.id(), SOFT_TIMEOUT));
        assertInstanceOf(TransitionOutcome.Applied.class, store.starts().markUnknown(a.id()));
        assertInstanceOf(TransitionOutcome.Applied.class, store.interventions().resolveCancelled(a.id(),
                OperatorAction.of("test", OperatorAction.RESOLVE_CANCELLED, "operator: provider outage")));
        Attempt b = assertInstanceOf(NewAttemptOutcome.Created.class, store.interventions().newAttempt(a.jobId(), "backup")).attempt();
        assertInstanceOf(TransitionOutcome.Applied.class, store.starts().start(b.id(), SOFT_TIMEOUT));
        return new Attempt[] {a, b};
    }

    long count(String sql, Object... args) {
        return database.inTransaction(connection -> SqlCounts.queryLong(connection, sql, args));
    }

    long outboxEvents(String topic, UUID jobId) {
        return count("SELECT count(*) FROM outbox WHERE topic = ? AND message_key = ?", topic, jobId.toString());
    }
}
