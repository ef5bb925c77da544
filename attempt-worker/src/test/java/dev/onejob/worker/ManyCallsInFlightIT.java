package dev.onejob.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.simulator.Behaviour;
import dev.onejob.simulator.LedgerEntry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Provider calls are asynchronous: one worker holds thousands of AI-length calls at once, each costing a
 * connection and a future, not a thread. The figure the benchmark cannot show on two shared cores (there the
 * pipeline upstream feeds the worker more slowly than calls finish) is shown here with the commands already waiting.
 */
class ManyCallsInFlightIT {
    private static final int JOBS = 2_500;
    private static final int REQUIRED_IN_FLIGHT = 2_000;

    private final WorkerFixture fixture = new WorkerFixture();

    @AfterEach
    void close() throws InterruptedException {
        fixture.close();
    }

    @Test
    void oneWorkerHoldsTwoThousandCallsInFlightAndCallsEachOnce() throws InterruptedException {
        // given 2,500 attempt commands waiting, and a provider that answers each after 15 s
        fixture.primary.setDefaultBehaviour(Behaviour.answerAfter(Duration.ofSeconds(15)));
        List<Attempt> attempts = fixture.submit(JOBS, "a long answer");
        fixture.relay(1);

        // when one worker (the default WORKER_MAX_IN_FLIGHT) starts
        AttemptWorker worker = fixture.startWorker(fixture.providers(Duration.ofSeconds(40), Duration.ofSeconds(50)),
                new KafkaConfig(fixture.bootstrap), fixture.ledger, 4096);

        // then at some moment the simulator holds at least 2,000 of its requests unanswered at once
        int peakWorker = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(14).toNanos();
        while (System.nanoTime() < deadline && peakWorker < JOBS) {
            peakWorker = Math.max(peakWorker, worker.inFlight());
            Thread.sleep(50);
        }
        List<AttemptCompletion> completions = fixture.completions(attempts, JOBS, Duration.ofSeconds(90));
        long peakAtSimulator = LedgerEntry.peakHeld(fixture.primary.ledger());
        assertTrue(peakAtSimulator >= REQUIRED_IN_FLIGHT, "the simulator held at most " + peakAtSimulator
                + " requests at once (the worker counted " + peakWorker + " calls in flight)");

        // and every attempt was called once and succeeded, once
        assertEquals(JOBS, completions.size());
        Map<String, Integer> calls = new HashMap<>();
        for (LedgerEntry entry : fixture.primary.ledger()) {
            calls.merge(entry.idempotencyKey(), 1, Integer::sum);
        }
        for (Attempt attempt : attempts) {
            assertEquals(1, calls.getOrDefault(attempt.id().toString(), 0), "calls for attempt " + attempt.id());
        }
        assertTrue(completions.stream().allMatch(c -> c.outcome() == AttemptCompletion.Outcome.SUCCEEDED),
                "every completion SUCCEEDED");
        // and the worker started exactly the calls the simulator received: the worker group may also hold commands
        // an earlier test left PENDING on purpose (ShutdownMidPollIT), which this worker starts and calls too
        assertEquals(fixture.primary.ledger().size(), worker.started());
    }
}
