package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.onejob.testing.Await;
import dev.onejob.testing.StartGate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

class LiveAttemptGuardIT {
    private final LedgerFixture ledger = new LedgerFixture();

    private List<NewAttemptOutcome> fallbackButtonPressedBy32(UUID jobId) {
        List<Callable<NewAttemptOutcome>> presses = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            presses.add(() -> ledger.store.interventions().newAttempt(jobId, "backup"));
        }
        return StartGate.race(presses);
    }

    private void assertAllRefusedNaming(List<NewAttemptOutcome> outcomes, Attempt live, AttemptStatus status) {
        for (NewAttemptOutcome outcome : outcomes) {
            var refused = assertInstanceOf(NewAttemptOutcome.LiveAttemptExists.class, outcome);
            assertEquals(live.id(), refused.attemptId());
            assertEquals(status, refused.status());
        }
        assertEquals(1, ledger.count("SELECT count(*) FROM attempts WHERE job_id = ?", live.jobId()));
    }

    @Test
    void noNewAttemptWhileOneIsPendingStartingOrUnknown() {
        // given a job whose first attempt is live
        Attempt first = ledger.submitted("owner-a").firstAttempt();
        long version = ledger.store.lookups().job(first.jobId()).orElseThrow().version();

        // when 32 callers press the fallback button in each live state, then all are refused, naming the live one
        assertAllRefusedNaming(fallbackButtonPressedBy32(first.jobId()), first, AttemptStatus.PENDING);
        ledger.store.starts().start(first.id(), LedgerFixture.SOFT_TIMEOUT);
        assertAllRefusedNaming(fallbackButtonPressedBy32(first.jobId()), first, AttemptStatus.STARTING);
        ledger.store.starts().markUnknown(first.id());
        assertAllRefusedNaming(fallbackButtonPressedBy32(first.jobId()), first, AttemptStatus.UNKNOWN);

        // and the refused presses left no trace on the job
        Job job = ledger.store.lookups().job(first.jobId()).orElseThrow();
        assertEquals(version, job.version());
        assertEquals(JobStatus.UNKNOWN, job.status());
    }

    @Test
    void afterCancellationExactlyOneOf32PressesCreatesAnAttempt() {
        // given a first attempt cancelled out of band
        Attempt first = ledger.startedFirstAttempt("owner-a");
        ledger.store.starts().markUnknown(first.id());
        assertInstanceOf(TransitionOutcome.Applied.class, ledger.store.interventions().resolveCancelled(first.id(),
                OperatorAction.of("test", OperatorAction.RESOLVE_CANCELLED, "outage")));
        assertEquals(JobStatus.NEEDS_ACTION, ledger.store.lookups().job(first.jobId()).orElseThrow().status());

        // when 32 callers press the fallback button together
        List<NewAttemptOutcome> outcomes = fallbackButtonPressedBy32(first.jobId());

        // then exactly one attempt was created and every other press names it
        List<Attempt> created = outcomes.stream().filter(NewAttemptOutcome.Created.class::isInstance)
                .map(o -> ((NewAttemptOutcome.Created) o).attempt()).toList();
        assertEquals(1, created.size());
        Attempt second = created.get(0);
        assertEquals(2, second.number());
        outcomes.stream().filter(o -> !(o instanceof NewAttemptOutcome.Created)).forEach(o ->
                assertEquals(second.id(), assertInstanceOf(NewAttemptOutcome.LiveAttemptExists.class, o).attemptId()));
        assertEquals(2, ledger.count("SELECT count(*) FROM attempts WHERE job_id = ?", first.jobId()));
        assertEquals(2, ledger.outboxEvents("attempt-commands", first.jobId()));
    }

    @Test
    void afterFailureExactlyOneFailoverAttemptEvenWhenTheFailureIsDelivered32Times() {
        // given a started first attempt
        Attempt first = ledger.startedFirstAttempt("owner-a");

        // when its failure arrives 32 times at once
        List<Callable<FailureOutcome>> deliveries = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            deliveries.add(() -> ledger.store.failures().fail(first.id(), new AttemptFailure("http_500", "boom", false),
                    ProviderGate.ALLOW_ALL));
        }
        List<FailureOutcome> outcomes = StartGate.race(deliveries);

        // then one failover happened, onto the fallback, and the rest were recognised as redeliveries
        List<FailureOutcome.FailedOver> failovers = outcomes.stream()
                .filter(FailureOutcome.FailedOver.class::isInstance).map(FailureOutcome.FailedOver.class::cast).toList();
        assertEquals(1, failovers.size());
        assertEquals("backup", failovers.get(0).next().provider());
        assertEquals(31, outcomes.stream().filter(FailureOutcome.AlreadyApplied.class::isInstance).count());
        assertEquals(2, ledger.count("SELECT count(*) FROM attempts WHERE job_id = ?", first.jobId()));
        assertEquals(JobStatus.QUEUED, ledger.store.lookups().job(first.jobId()).orElseThrow().status());
    }

    @Test
    void whenNoEligibleProviderIsLeftTheJobFailsWithOneResult() {
        Attempt first = ledger.startedFirstAttempt("owner-a");

        FailureOutcome outcome = ledger.store.failures().fail(first.id(), new AttemptFailure("http_500", "boom", false),
                (job, provider) -> false);

        assertInstanceOf(FailureOutcome.JobFailed.class, outcome);
        Job job = ledger.store.lookups().job(first.jobId()).orElseThrow();
        assertEquals(JobStatus.FAILED, job.status());
        assertEquals("http_500", job.errorCode());
        assertEquals(1, ledger.outboxEvents("job-results", job.id()));
        assertInstanceOf(NewAttemptOutcome.JobFinished.class, ledger.store.interventions().newAttempt(job.id(), "backup"));
    }

    @Test
    void theFallbackButtonOnlyOffersProvidersTheJobAllows() {
        Attempt first = ledger.startedFirstAttempt("owner-a");
        ledger.store.starts().markUnknown(first.id());
        ledger.store.interventions().resolveCancelled(first.id(),
                OperatorAction.of("test", OperatorAction.RESOLVE_CANCELLED, "outage"));
        var refused = ledger.store.interventions().newAttempt(first.jobId(), "somewhere-else");
        assertEquals(List.of("primary", "backup"),
                assertInstanceOf(NewAttemptOutcome.ProviderNotAllowed.class, refused).allowed());
    }

    @Test
    void aTimedOutAttemptIsUnknownNotFailed() {
        // given one attempt started with a short soft timeout and one with a long one
        Attempt overdue = ledger.submitted("owner-a").firstAttempt();
        Attempt inTime = ledger.submitted("owner-a").firstAttempt();
        ledger.store.starts().start(overdue.id(), Duration.ofMillis(50));
        ledger.store.starts().start(inTime.id(), Duration.ofMinutes(10));

        // when the sweeper runs after the short deadline
        Await.until(Duration.ofSeconds(10), "the overdue attempt to be swept", () -> {
            ledger.store.starts().sweepOverdue(1000);
            return ledger.store.lookups().attempt(overdue.id()).orElseThrow().status() == AttemptStatus.UNKNOWN;
        });

        // then the overdue attempt and its job are UNKNOWN, not FAILED, and the other is untouched
        assertEquals(JobStatus.UNKNOWN, ledger.store.lookups().job(overdue.jobId()).orElseThrow().status());
        assertEquals(AttemptStatus.STARTING, ledger.store.lookups().attempt(inTime.id()).orElseThrow().status());
        assertEquals(JobStatus.RUNNING, ledger.store.lookups().job(inTime.jobId()).orElseThrow().status());
    }

    @Test
    void anAttemptPastItsSoftDeadlineIsSweptOnlyOnceItsWorkerCountsAsVanished() {
        // given an attempt whose soft deadline passes at once, but whose worker said it is live for 2 s more
        Attempt waiting = ledger.submitted("owner-a").firstAttempt();
        ledger.store.starts().start(waiting.id(), Duration.ofMillis(1), Duration.ofSeconds(2), UUID.randomUUID());
        long started = System.nanoTime();

        // when the sweeper runs before that, and again until the attempt is swept
        ledger.store.starts().sweepOverdue(1000);
        AttemptStatus early = ledger.store.lookups().attempt(waiting.id()).orElseThrow().status();
        Await.until(Duration.ofSeconds(10), "the abandoned attempt to be swept", () -> {
            ledger.store.starts().sweepOverdue(1000);
            return ledger.store.lookups().attempt(waiting.id()).orElseThrow().status() == AttemptStatus.UNKNOWN;
        });

        // then it stayed STARTING past its soft deadline (its outcome may be queued behind the reconciler: the
        // worker reports UNKNOWN itself), and became UNKNOWN only once abandoned
        assertEquals(AttemptStatus.STARTING, early);
        // (the database's clock started the 2 s a little before this thread's; a second of slack is plenty)
        long sweptAfterMillis = (System.nanoTime() - started) / 1_000_000;
        if (sweptAfterMillis < 1_000) {
            throw new AssertionError("swept " + sweptAfterMillis + " ms after the start, before its abandon_after");
        }
    }

    @Test
    void aRedeliveredCommandDoesNotStartTheAttemptTwice() {
        Attempt first = ledger.submitted("owner-a").firstAttempt();
        assertInstanceOf(TransitionOutcome.Applied.class, ledger.store.starts().start(first.id(), LedgerFixture.SOFT_TIMEOUT));
        var again = assertInstanceOf(TransitionOutcome.NotApplied.class,
                ledger.store.starts().start(first.id(), LedgerFixture.SOFT_TIMEOUT));
        assertEquals("STARTING", again.current());
    }
}
