package dev.onejob.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.db.Database;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM while the poll thread is in the middle of a poll (the chaos run's term-worker caught a worker whose
 * database had just come back): the drain must wait for the poll thread, so that the calls of the starts it has in
 * hand are made and published before the publisher closes; an attempt not started stays PENDING and uncalled. Until
 * this test the drain counted no call in flight, closed the publisher at once, and the poll thread went on starting
 * and calling: paid answers nobody could publish. (The starts of a poll are one transaction, so a poll's records
 * are started, and called, together.)
 */
class ShutdownMidPollIT {
    private final WorkerFixture fixture = new WorkerFixture();

    @AfterEach
    void stop() throws InterruptedException {
        fixture.close();
    }

    @Test
    void aShutdownDuringAPollDrainsTheCallInHandAndStartsNoOther() throws Exception {
        // given a worker whose first start commits and then waits until the test lets it go on
        CountDownLatch inCommit = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        // (the worker's group may still have other tests' commands to read: the hold waits for one of ours)
        AtomicBoolean first = new AtomicBoolean(true);
        AtomicReference<List<Attempt>> ours = new AtomicReference<>(List.of());
        Ledger held = new Ledger(Database.wrap(new HookedDataSource(TestDatabase.shared().dataSource(),
                () -> {
                    boolean oursStarted = ours.get().stream().anyMatch(a -> fixture.ledger.lookups().attempt(a.id())
                            .orElseThrow().status() == AttemptStatus.STARTING);
                    if (oursStarted && first.compareAndSet(true, false)) {
                        inCommit.countDown();
                        try {
                            goOn.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                })));
        AttemptWorker worker = fixture.startWorker(fixture.providers(Duration.ofSeconds(5), Duration.ofSeconds(10)),
                new KafkaConfig(fixture.bootstrap), held);
        List<Attempt> attempts = fixture.submit(3, "I loved it");
        ours.set(attempts);
        fixture.relay(1);
        assertTrue(inCommit.await(30, TimeUnit.SECONDS), "the worker's first start reached its commit");

        // when the worker is shut down while that start is in hand, and the start then returns
        Thread closing = new Thread(() -> worker.close(Duration.ofSeconds(15)), "closing");
        closing.start();
        Thread.sleep(300);
        goOn.countDown();
        closing.join(20_000);

        // then every attempt that start committed was called once and its answer published, and every other
        // attempt stays PENDING, uncalled, for another worker
        List<Attempt> started = attempts.stream().filter(a -> fixture.ledger.lookups().attempt(a.id()).orElseThrow().status()
                != AttemptStatus.PENDING).toList();
        assertTrue(!started.isEmpty(), "the held start committed");
        List<AttemptCompletion> completions = fixture.completions(started, started.size(), Duration.ofSeconds(20));
        assertEquals(started.size(), completions.size(), completions.toString());
        assertTrue(completions.stream().allMatch(c -> c.outcome() == AttemptCompletion.Outcome.SUCCEEDED),
                completions.toString());
        for (Attempt attempt : attempts) {
            assertEquals(started.contains(attempt) ? 1 : 0,
                    fixture.primary.requestsWithIdempotencyKey(attempt.id().toString()), "calls of " + attempt.id());
        }
    }
}
