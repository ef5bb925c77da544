package dev.onejob.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.onejob.core.db.Database;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.testing.TestDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The phantom UNKNOWN: PostgreSQL commits the worker's PENDING -> STARTING, and the connection breaks before the
 * worker hears so. The fault is injected at the JDBC boundary of the real database: the real COMMIT runs, then the
 * worker is told the connection was lost (SQLState 08006), exactly what a broken socket during COMMIT looks like.
 */
class LostStartAcknowledgementIT {
    private final WorkerFixture fixture = new WorkerFixture();

    @AfterEach
    void stop() throws InterruptedException {
        fixture.close();
    }

    @Test
    void aStartWhoseCommitSucceededButWhoseAnswerWasLostIsRecognisedAndCalledOnce() {
        // given a worker whose next COMMIT succeeds but reports a lost connection
        AtomicBoolean armed = new AtomicBoolean(true);
        Ledger faulty = new Ledger(Database.wrap(losingTheAnswerToCommit(TestDatabase.shared().dataSource(),
                armed)));
        fixture.startWorker(fixture.providers(Duration.ofSeconds(5), Duration.ofSeconds(10)),
                new KafkaConfig(fixture.bootstrap), faulty);
        Attempt attempt = fixture.submit(1, "I loved it").get(0);

        // when its command arrives
        fixture.relay(1);

        // then, after reading the poll again, the worker knows the start as its own and makes the one call
        List<AttemptCompletion> completions = fixture.completions(List.of(attempt), 1, Duration.ofSeconds(30));
        assertFalse(armed.get(), "the fault was injected");
        assertEquals(1, completions.size(), completions.toString());
        assertEquals(AttemptCompletion.Outcome.SUCCEEDED, completions.get(0).outcome());
        assertEquals(1, fixture.primary.requestsWithIdempotencyKey(attempt.id().toString()));
    }

    @Test
    void aStartWhoseAnswerWasLostAndThatTheSweeperMadeUnknownIsFailedAsNeverSent() {
        // given a worker whose next COMMIT succeeds but reports a lost connection, and a sweeper that makes the
        // attempt UNKNOWN before the worker hears from PostgreSQL again
        AtomicBoolean armed = new AtomicBoolean(true);
        Ledger real = new Ledger(Database.wrap(TestDatabase.shared().dataSource()));
        AtomicReference<Attempt> submitted = new AtomicReference<>();
        // (the worker's group may still have other tests' commands to read: the fault waits for this attempt's start)
        Ledger faulty = new Ledger(Database.wrap(new HookedDataSource(TestDatabase.shared().dataSource(),
                () -> {
                    Attempt ours = submitted.get();
                    if (ours != null && real.lookups().attempt(ours.id()).orElseThrow().status() == AttemptStatus.STARTING
                            && armed.compareAndSet(true, false)) {
                        real.starts().markUnknown(ours.id());
                        throw new SQLException("An I/O error occurred while sending to the backend.", "08006");
                    }
                })));
        fixture.startWorker(fixture.providers(Duration.ofSeconds(5), Duration.ofSeconds(10)),
                new KafkaConfig(fixture.bootstrap), faulty);
        Attempt attempt = fixture.submit(1, "I loved it").get(0);
        submitted.set(attempt);

        // when its command arrives
        fixture.relay(1);

        // then the worker knows its request never left: one FAILED completion, not sent, and no call
        List<AttemptCompletion> completions = fixture.completions(List.of(attempt), 1, Duration.ofSeconds(30));
        assertFalse(armed.get(), "the fault was injected");
        assertEquals(1, completions.size(), completions.toString());
        assertEquals(AttemptCompletion.Outcome.FAILED, completions.get(0).outcome());
        assertEquals(StartsInDoubt.NOT_SENT, completions.get(0).error().code());
        assertFalse(completions.get(0).error().sent());
        assertEquals(0, fixture.primary.requestsWithIdempotencyKey(attempt.id().toString()));
    }

    /** Connections whose first COMMIT while {@code armed} commits, then throws as if the socket broke. */
    private static DataSource losingTheAnswerToCommit(DataSource real, AtomicBoolean armed) {
        return new HookedDataSource(real, () -> {
            if (armed.compareAndSet(true, false)) {
                throw new SQLException("An I/O error occurred while sending to the backend.", "08006");
            }
        });
    }
}
