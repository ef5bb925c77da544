package dev.onejob.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.core.ledger.LedgerEvents;
import dev.onejob.simulator.Behaviour;
import dev.onejob.testing.Await;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TopicProbe;
import java.nio.file.Files;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AttemptWorkerIT {
    private WorkerFixture fixture;

    @BeforeEach
    void start() {
        fixture = new WorkerFixture();
    }

    @AfterEach
    void stop() throws InterruptedException {
        fixture.close();
    }

    @Test
    void aWorkerEvictedFromItsGroupMidPollRejoinsAndGoesOnWorking() throws Exception {
        // given a worker that may go 1 s between polls, and a test transaction holding the row its next attempt is on
        AttemptWorker worker = fixture.startWorker(fixture.providers(Duration.ofSeconds(5), Duration.ofSeconds(10)),
                new KafkaConfig(fixture.bootstrap, 1_000));
        Attempt stalled = fixture.submit(1, "I loved it").get(0);
        try (Connection lock = TestDatabase.shared().dataSource().getConnection()) {
            lock.setAutoCommit(false);
            try (var statement = lock.prepareStatement("SELECT 1 FROM attempts WHERE id = ? FOR UPDATE")) {
                statement.setObject(1, stalled.id());
                statement.executeQuery().close();
            }
            fixture.relay(1);
            // when the worker's PENDING -> STARTING waits on that row past max.poll.interval.ms (it leaves the group)
            Thread.sleep(4_000);
            lock.rollback();
        }

        // then its offset commit is refused, yet it rejoins: the stalled attempt and a new one both complete, once
        Attempt after = fixture.submit(1, "still here").get(0);
        fixture.relay(1);
        List<AttemptCompletion> completions = fixture.completions(List.of(stalled, after), 2, Duration.ofSeconds(60));
        assertEquals(2, completions.size(), completions.toString());
        assertEquals(1, fixture.primary.requestsWithIdempotencyKey(stalled.id().toString()));
        assertEquals(1, fixture.primary.requestsWithIdempotencyKey(after.id().toString()));
        assertEquals(2, worker.started(), "the same worker started both");
    }

    @Test
    void aCommandDeliveredThreeTimesCallsTheProviderOnce() {
        // given a worker and one job
        fixture.startWorker(fixture.providers(Duration.ofSeconds(5), Duration.ofSeconds(10)));
        Attempt attempt = fixture.submit(1, "I loved it").get(0);

        // when its command is delivered three times
        fixture.relay(3);

        // then one provider call, one SUCCEEDED completion with a result that keeps the contract
        List<AttemptCompletion> completions = fixture.completions(List.of(attempt), 1, Duration.ofSeconds(30));
        assertEquals(1, completions.size(), completions.toString());
        assertEquals(AttemptCompletion.Outcome.SUCCEEDED, completions.get(0).outcome());
        assertEquals("positive", completions.get(0).result().path("sentiment").asText());
        assertEquals(1, fixture.primary.requestsWithIdempotencyKey(attempt.id().toString()));
        assertEquals(AttemptStatus.STARTING, fixture.ledger.lookups().attempt(attempt.id()).orElseThrow().status(),
                "the worker only starts attempts; the reconciler applies completions");
    }

    @Test
    void aLateAnswerIsUnknownAtTheSoftDeadlineThenSucceeded() {
        // given soft timeout 1 s, hard 10 s, and a primary that answers this attempt at 3 s
        fixture.startWorker(fixture.providers(Duration.ofSeconds(1), Duration.ofSeconds(10)));
        Attempt attempt = fixture.submit(1, "I loved it").get(0);
        fixture.primary.setBehaviour(attempt.id().toString(), Behaviour.hangThenAnswer(Duration.ofSeconds(3)));

        fixture.relay(1);

        // then UNKNOWN first, SUCCEEDED after, for the same attempt, from one provider call
        List<AttemptCompletion> completions = fixture.completions(List.of(attempt), 2, Duration.ofSeconds(30));
        assertEquals(List.of(AttemptCompletion.Outcome.UNKNOWN, AttemptCompletion.Outcome.SUCCEEDED),
                completions.stream().map(AttemptCompletion::outcome).toList());
        assertTrue(completions.get(0).unknownReason().contains("soft timeout"));
        assertEquals(1, fixture.primary.requestsWithIdempotencyKey(attempt.id().toString()));
    }

    @Test
    void anInventedKeyOrAMissingFieldIsAContractViolationNeverAResult() {
        fixture.startWorker(fixture.providers(Duration.ofSeconds(5), Duration.ofSeconds(10)));
        List<Attempt> attempts = fixture.submit(2, "I loved it");
        fixture.primary.setBehaviour(attempts.get(0).id().toString(), Behaviour.inventKey("confidence"));
        fixture.primary.setBehaviour(attempts.get(1).id().toString(), Behaviour.dropField("sentiment", 1));

        fixture.relay(1);

        List<AttemptCompletion> completions = fixture.completions(attempts, 2, Duration.ofSeconds(30));
        assertEquals(2, completions.size());
        for (AttemptCompletion completion : completions) {
            assertEquals(AttemptCompletion.Outcome.FAILED, completion.outcome());
            assertEquals("contract_violation", completion.error().code());
            assertNull(completion.result());
            assertTrue(completion.error().offendingAnswer() != null, "the offending answer is kept for the audit");
        }
    }

    @Test
    void aCommandForAnUnknownProviderOrGarbageIsDeadLetteredAndTheWorkerGoesOn() {
        fixture.startWorker(fixture.providers(Duration.ofSeconds(5), Duration.ofSeconds(10)));
        fixture.producer.send(new ProducerRecord<>(
                Topics.ATTEMPT_COMMANDS.name(), "x".getBytes(), "{not json".getBytes()));
        Attempt after = fixture.submit(1, "fine").get(0);
        fixture.relay(1);
        assertEquals(1, fixture.completions(List.of(after), 1, Duration.ofSeconds(30)).size());
        var letters = TopicProbe.await(fixture.bootstrap,
                Topics.ATTEMPT_COMMANDS_DLQ.name(),
                r -> "{not json".equals(TopicProbe.text(r.value())), 1, Duration.ofSeconds(20));
        assertEquals(1, letters.size());
        assertTrue(new String(letters.get(0).headers().lastHeader("onejob-dlq-reason").value()).contains("not a valid"));
    }

    @Test
    void twoThenFourWorkersShareTheWorkAndCallEachOf1000AttemptsExactlyOnce() throws Exception {
        var providers = fixture.providers(Duration.ofSeconds(10), Duration.ofSeconds(20));
        for (int workers : new int[] {2, 4}) {
            // given N workers that share the 3 partitions (a worker takes a poll of 500 in one statement: one that
            // joined alone first would take all 1000 before the group rebalanced), then 1000 commands, each twice
            List<Attempt> attempts = fixture.submit(1000, "scale");
            List<AttemptWorker> started = new ArrayList<>();
            for (int i = 0; i < workers; i++) {
                started.add(fixture.startWorker(providers));
            }
            int sharing = Math.min(workers, 3);
            Await.until(Duration.ofSeconds(60), "the group to give partitions to " + sharing + " workers", () ->
                    started.stream().filter(w -> w.assignedPartitions() > 0).count() == sharing
                            && started.stream().mapToInt(AttemptWorker::assignedPartitions).sum() == 3);
            fixture.relay(2);

            // then every attempt was called exactly once and completed once, and more than one worker did work
            List<AttemptCompletion> completions = fixture.completions(attempts, 1000, Duration.ofSeconds(120));
            assertEquals(1000, completions.size());
            assertEquals(1000, completions.stream().map(AttemptCompletion::attemptId).distinct().count());
            // A call a loaded machine had not sent by its soft deadline completed UNKNOWN first; it is sent before its
            // hard deadline, or, when no connection was ready by then, given up and reported FAILED not sent. So
            // each attempt reaches the simulator once, or never and is reported so: never twice, never in doubt.
            Await.until(Duration.ofSeconds(60), "every attempt to reach the provider or be reported not sent", () -> {
                List<Attempt> unreached = attempts.stream().filter(a -> calls(a) == 0).toList();
                return unreached.isEmpty() || fixture.reportedNotSent(unreached).size() == unreached.size();
            });
            List<Attempt> reached = attempts.stream().filter(a -> calls(a) == 1).toList();
            assertTrue(attempts.stream().allMatch(a -> calls(a) <= 1), "no attempt reached the provider twice");
            assertTrue(!reached.isEmpty(), "the calls reached the provider: " + (1000 - reached.size()) + " not sent");
            Await.until(Duration.ofSeconds(10), "calls to settle", () -> started.stream().allMatch(w -> w.inFlight() == 0));
            assertEquals(1000, started.stream().mapToInt(AttemptWorker::started).sum());
            assertTrue(started.stream().filter(w -> w.started() > 0).count() >= 2,
                    "the partitions were shared: " + started.stream().map(AttemptWorker::started).toList());
            fixture.stopWorkers();
        }
    }

    private long calls(Attempt attempt) {
        return fixture.primary.requestsWithIdempotencyKey(attempt.id().toString());
    }

    @Test
    void aWorkerKilledMidCallIsNotFollowedByASecondCallAndTheAttemptEndsUnknown() throws Exception {
        // given a worker in its own process and a primary that never answers this attempt
        Attempt attempt = fixture.submit(1, "I loved it").get(0);
        fixture.primary.setBehaviour(attempt.id().toString(), Behaviour.hangForever());
        Process worker = WorkerProcess.start(fixture, Duration.ofSeconds(1));
        try {
            fixture.relay(1);
            Await.until(Duration.ofSeconds(60), "the worker process to call the provider", () ->
                    fixture.primary.requestsWithIdempotencyKey(attempt.id().toString()) == 1);
            assertEquals(AttemptStatus.STARTING, fixture.ledger.lookups().attempt(attempt.id()).orElseThrow().status());
        } finally {
            // when it is killed mid-call
            worker.destroyForcibly().waitFor();
        }
        String log = Files.readString(WorkerProcess.LOG);
        assertTrue(log.contains("event=attempt_started"), "the worker's log was captured");
        assertTrue(!log.contains(WorkerProcess.API_KEY), "the provider API key never appears in the log");

        // and a new worker starts and the command is delivered again
        fixture.startWorker(fixture.providers(Duration.ofSeconds(1), Duration.ofSeconds(2)));
        Attempt redelivered = fixture.submit(1, "a marker job behind the redelivery").get(0);
        fixture.producer.send(new ProducerRecord<>(
                Topics.ATTEMPT_COMMANDS.name(), attempt.jobId().toString().getBytes(),
                Json.write(LedgerEvents.attemptCommand(
                        fixture.ledger.lookups().job(attempt.jobId()).orElseThrow(), attempt).toJson()).getBytes())).get();
        fixture.relay(1);
        // (the killed member holds its partitions until its 10 s session times out)
        assertEquals(1, fixture.completions(List.of(redelivered), 1, Duration.ofSeconds(60)).size());

        // then no second call was made, and the sweeper turns the attempt UNKNOWN (never FAILED, never PENDING)
        assertEquals(1, fixture.primary.requestsWithIdempotencyKey(attempt.id().toString()));
        Await.until(Duration.ofSeconds(10), "the soft deadline to pass and the sweep", () -> {
            fixture.ledger.starts().sweepOverdue(100);
            return fixture.ledger.lookups().attempt(attempt.id()).orElseThrow().status() == AttemptStatus.UNKNOWN;
        });
    }
}
