package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.CanonicalJson;
import dev.onejob.core.json.Json;
import dev.onejob.testing.StartGate;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

class CompletionIT {
    private static final JsonNode RESULT_A = Json.parse("{\"sentiment\":\"positive\",\"from\":\"primary\"}");
    private static final JsonNode RESULT_B = Json.parse("{\"sentiment\":\"positive\",\"from\":\"backup\"}");
    private final LedgerFixture ledger = new LedgerFixture();

    @Test
    void reverseOrderTheFallbackWinsAndTheLatePrimaryIsDiscarded() {
        // given A (primary) UNKNOWN then cancelled out of band, and B (backup) started
        Attempt[] ab = ledger.cancelledThenFallback();
        Attempt a = ab[0];
        Attempt b = ab[1];

        // when B answers first and A's answer arrives later
        CompletionOutcome bOutcome = ledger.store.completions().complete(b.jobId(), b.id(), RESULT_B, "req-b");
        CompletionOutcome aOutcome = ledger.store.completions().complete(a.jobId(), a.id(), RESULT_A, "req-a");

        // then B won, A lost to B and its result was discarded, not merged
        assertEquals(new CompletionOutcome.Won(b.jobId(), b.id()), bOutcome);
        var lost = assertInstanceOf(CompletionOutcome.Lost.class, aOutcome);
        assertEquals(b.id(), lost.winner());
        assertEquals(LossReason.ATTEMPT_CANCELLED, lost.reason());
        assertTrue(lost.firstReport());
        Job job = ledger.store.lookups().job(a.jobId()).orElseThrow();
        assertEquals(JobStatus.SUCCEEDED, job.status());
        assertEquals(b.id(), job.completedBy());
        assertEquals(RESULT_B, job.result());
        Attempt aAfter = ledger.store.lookups().attempt(a.id()).orElseThrow();
        assertEquals(AttemptStatus.DISCARDED, aAfter.status());
        assertEquals(LossReason.ATTEMPT_CANCELLED, aAfter.lostReason());
        assertEquals(CanonicalJson.fingerprint(RESULT_A), aAfter.discardedResultSha256());
        assertEquals(AttemptStatus.SUCCEEDED, ledger.store.lookups().attempt(b.id()).orElseThrow().status());
        assertEquals(1, ledger.outboxEvents("job-results", job.id()));
        assertEquals(1, ledger.outboxEvents("race-audit", job.id()));
    }

    @Test
    void aLateAnswerForAnUnknownAttemptStillWinsWhenNobodyResolvedIt() {
        Attempt a = ledger.startedFirstAttempt("owner-a");
        ledger.store.starts().markUnknown(a.id());

        assertEquals(new CompletionOutcome.Won(a.jobId(), a.id()), ledger.store.completions().complete(a.jobId(), a.id(), RESULT_A, null));
        assertEquals(JobStatus.SUCCEEDED, ledger.store.lookups().job(a.jobId()).orElseThrow().status());
    }

    @Test
    void concurrentCompletionsHaveExactlyOneWinner() {
        for (int round = 0; round < 500; round++) {
            // given A cancelled out of band and B live, both with an answer in hand
            Attempt[] ab = ledger.cancelledThenFallback();
            Attempt a = ab[0];
            Attempt b = ab[1];

            // when both completions are applied at the same moment
            List<CompletionOutcome> outcomes = StartGate.race(List.<Callable<CompletionOutcome>>of(
                    () -> ledger.store.completions().complete(a.jobId(), a.id(), RESULT_A, "req-a"),
                    () -> ledger.store.completions().complete(b.jobId(), b.id(), RESULT_B, "req-b")));

            // then exactly one won, the other lost to it, and the job holds one result: the winner's
            long winners = outcomes.stream().filter(CompletionOutcome.Won.class::isInstance).count();
            assertEquals(1, winners, "round " + round + ": " + outcomes);
            // (A's loss names B when B committed first; when A's answer was handled first there was no winner yet)
            var lost = assertInstanceOf(CompletionOutcome.Lost.class, outcomes.get(0));
            assertTrue(lost.winner() == null || lost.winner().equals(b.id()), "round " + round + ": " + lost);
            assertEquals(LossReason.ATTEMPT_CANCELLED, lost.reason());
            Job job = ledger.store.lookups().job(a.jobId()).orElseThrow();
            assertEquals(RESULT_B, job.result());
            assertEquals(1, ledger.outboxEvents("job-results", job.id()));
            assertEquals(1, ledger.outboxEvents("race-audit", job.id()));
        }
    }

    @Test
    void completionRacingTheOwnersCancelHasOneOutcome() {
        for (int round = 0; round < 500; round++) {
            // given a started attempt
            Attempt a = ledger.startedFirstAttempt("owner-a");

            // when its answer and the owner's cancel arrive together
            List<Object> outcomes = StartGate.race(List.<Callable<Object>>of(
                    () -> ledger.store.completions().complete(a.jobId(), a.id(), RESULT_A, null),
                    () -> ledger.store.interventions().cancelJob(a.jobId(), "owner changed their mind")));

            // then either the answer won and the cancel came too late, or the cancel won and the answer was discarded
            Job job = ledger.store.lookups().job(a.jobId()).orElseThrow();
            if (outcomes.get(0) instanceof CompletionOutcome.Won) {
                assertInstanceOf(TransitionOutcome.NotApplied.class, outcomes.get(1));
                assertEquals(JobStatus.SUCCEEDED, job.status());
                assertEquals(0, ledger.outboxEvents("race-audit", job.id()));
            } else {
                var lost = assertInstanceOf(CompletionOutcome.Lost.class, outcomes.get(0));
                assertEquals(LossReason.JOB_CANCELLED, lost.reason());
                assertNull(lost.winner());
                assertEquals(JobStatus.CANCELLED, job.status());
                assertNull(job.result());
                assertEquals(1, ledger.outboxEvents("race-audit", job.id()));
            }
            assertEquals(1, ledger.outboxEvents("job-results", job.id()), "round " + round);
        }
    }

    @Test
    void redeliveringTheWinnersCompletionIsAlreadyAppliedAndChangesNothing() {
        Attempt a = ledger.startedFirstAttempt("owner-a");
        assertInstanceOf(CompletionOutcome.Won.class, ledger.store.completions().complete(a.jobId(), a.id(), RESULT_A, "req-a"));
        Job before = ledger.store.lookups().job(a.jobId()).orElseThrow();

        CompletionOutcome again = ledger.store.completions().complete(a.jobId(), a.id(), RESULT_A, "req-a");

        assertEquals(new CompletionOutcome.AlreadyApplied(a.jobId(), a.id()), again);
        assertEquals(before, ledger.store.lookups().job(a.jobId()).orElseThrow());
        assertEquals(1, ledger.outboxEvents("job-results", a.jobId()));
    }

    @Test
    void redeliveringALosersCompletionReportsTheLossOnceAndAuditsOnce() {
        Attempt[] ab = ledger.cancelledThenFallback();
        ledger.store.completions().complete(ab[1].jobId(), ab[1].id(), RESULT_B, null);
        assertTrue(((CompletionOutcome.Lost) ledger.store.completions().complete(ab[0].jobId(), ab[0].id(), RESULT_A, null)).firstReport());

        var again = assertInstanceOf(CompletionOutcome.Lost.class,
                ledger.store.completions().complete(ab[0].jobId(), ab[0].id(), RESULT_A, null));

        assertFalse(again.firstReport());
        assertEquals(ab[1].id(), again.winner());
        assertEquals(1, ledger.outboxEvents("race-audit", ab[0].jobId()));
    }

    @Test
    void aRedeliveryWithADifferentResultIsRejectedAndTheRecordedResultStands() {
        Attempt[] ab = ledger.cancelledThenFallback();
        ledger.store.completions().complete(ab[1].jobId(), ab[1].id(), RESULT_B, null);
        ledger.store.completions().complete(ab[0].jobId(), ab[0].id(), RESULT_A, null);

        assertInstanceOf(CompletionOutcome.Rejected.class, ledger.store.completions().complete(ab[1].jobId(), ab[1].id(), RESULT_A, null));
        assertInstanceOf(CompletionOutcome.Rejected.class, ledger.store.completions().complete(ab[0].jobId(), ab[0].id(), RESULT_B, null));

        assertEquals(RESULT_B, ledger.store.lookups().job(ab[0].jobId()).orElseThrow().result());
        assertEquals(CanonicalJson.fingerprint(RESULT_A),
                ledger.store.lookups().attempt(ab[0].id()).orElseThrow().discardedResultSha256());
        assertEquals(1, ledger.outboxEvents("race-audit", ab[0].jobId()));
        // the same result again, formatted differently, is still a plain redelivery
        assertInstanceOf(CompletionOutcome.AlreadyApplied.class, ledger.store.completions().complete(ab[1].jobId(), ab[1].id(),
                Json.parse("{ \"from\" : \"backup\", \"sentiment\" : \"positive\" }"), null));
    }

    @Test
    void aCompletionForAnotherJobOrANeverStartedAttemptIsRejected() {
        Attempt a = ledger.submitted("owner-a").firstAttempt();
        Attempt other = ledger.submitted("owner-a").firstAttempt();
        assertInstanceOf(CompletionOutcome.Rejected.class, ledger.store.completions().complete(other.jobId(), a.id(), RESULT_A, null));
        assertInstanceOf(CompletionOutcome.Rejected.class, ledger.store.completions().complete(a.jobId(), a.id(), RESULT_A, null));
        assertEquals(JobStatus.QUEUED, ledger.store.lookups().job(a.jobId()).orElseThrow().status());
    }

    @Test
    void aSetOfAnswersGetsEachTheOutcomeItWouldGetAloneAndAJobsAnswersApplyInTheOrderTheyCame() {
        // given three started jobs, and one with A cancelled out of band and B started
        Attempt first = started("owner-a");
        Attempt second = started("owner-b");
        Attempt pendingOnly = ledger.submitted("owner-c").firstAttempt();
        Attempt[] ab = ledger.cancelledThenFallback();

        // when one set carries both jobs' answers, B's and then A's answer for the raced job, B's again, an answer
        // for a PENDING attempt and one naming the wrong provider
        List<CompletionOutcome> outcomes = ledger.store.completions().completeAll(List.of(
                new AttemptAnswer(first.jobId(), first.id(), "primary", RESULT_A, "r1"),
                new AttemptAnswer(ab[1].jobId(), ab[1].id(), "backup", RESULT_B, "rb"),
                new AttemptAnswer(second.jobId(), second.id(), "backup", RESULT_A, "r2"),
                new AttemptAnswer(ab[0].jobId(), ab[0].id(), "primary", RESULT_A, "ra"),
                new AttemptAnswer(ab[1].jobId(), ab[1].id(), "backup", RESULT_B, "rb"),
                new AttemptAnswer(pendingOnly.jobId(), pendingOnly.id(), null, RESULT_A, null)));

        // then
        assertEquals(new CompletionOutcome.Won(first.jobId(), first.id()), outcomes.get(0));
        assertEquals(new CompletionOutcome.Won(ab[1].jobId(), ab[1].id()), outcomes.get(1));
        assertTrue(assertInstanceOf(CompletionOutcome.Rejected.class, outcomes.get(2)).reason()
                .contains("ran on primary, not backup"));
        var lost = assertInstanceOf(CompletionOutcome.Lost.class, outcomes.get(3));
        assertEquals(ab[1].id(), lost.winner());
        assertTrue(lost.firstReport());
        assertEquals(new CompletionOutcome.AlreadyApplied(ab[1].jobId(), ab[1].id()), outcomes.get(4));
        assertEquals("attempt was never started",
                assertInstanceOf(CompletionOutcome.Rejected.class, outcomes.get(5)).reason());
        assertEquals(AttemptStatus.STARTING, ledger.store.lookups().attempt(second.id()).orElseThrow().status());
        assertEquals("r1", ledger.store.lookups().attempt(first.id()).orElseThrow().providerRequestId());
        assertEquals(1, ledger.outboxEvents("job-results", first.jobId()));
        assertEquals(1, ledger.outboxEvents("job-results", ab[0].jobId()));
        assertEquals(1, ledger.outboxEvents("race-audit", ab[0].jobId()));
        assertEquals(0, ledger.outboxEvents("job-results", second.jobId()));
    }

    @Test
    void anAnswerPostgresRefusesIsRefusedAloneAndTheRestOfItsSetIsApplied() {
        // given two started jobs, and an answer whose result PostgreSQL cannot store in jsonb (a U+0000 that no
        // check upstream caught)
        Attempt poisoned = started("owner-a");
        Attempt next = started("owner-b");

        // when both go in one set
        List<CompletionOutcome> outcomes = ledger.store.completions().completeAll(List.of(
                new AttemptAnswer(poisoned.jobId(), poisoned.id(), null,
                        Json.parse("{\"sentiment\":\"positive\",\"summary\":\"a\\u0000b\"}"), null),
                new AttemptAnswer(next.jobId(), next.id(), null, RESULT_B, null)));

        // then the poisoned one is refused with PostgreSQL's reason and nothing of it stored; the other won
        assertTrue(assertInstanceOf(CompletionOutcome.Rejected.class, outcomes.get(0)).reason()
                .startsWith("PostgreSQL refused to store it"));
        assertEquals(AttemptStatus.STARTING, ledger.store.lookups().attempt(poisoned.id()).orElseThrow().status());
        assertEquals(new CompletionOutcome.Won(next.jobId(), next.id()), outcomes.get(1));
        assertEquals(RESULT_B, ledger.store.lookups().job(next.jobId()).orElseThrow().result());
    }

    private Attempt started(String owner) {
        Attempt attempt = ledger.submitted(owner).firstAttempt();
        assertInstanceOf(TransitionOutcome.Applied.class, ledger.store.starts().start(attempt.id(), LedgerFixture.SOFT_TIMEOUT));
        return attempt;
    }
}
