package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.JobTimeline.Event;
import dev.onejob.core.ledger.JobTimeline.Position;
import dev.onejob.core.ledger.JobTimeline.Type;
import dev.onejob.core.ledger.LedgerQueries.JobHistory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class JobTimelineTest {
    private static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");
    private static final UUID JOB = UUID.randomUUID();

    private static Instant t(int seconds) {
        return T0.plusSeconds(seconds);
    }

    private static Attempt attempt(int number, AttemptStatus status, Instant created, Instant started,
                                   Instant unknown, Instant finished, Instant updated, LossReason lost) {
        return new Attempt(UUID.randomUUID(), JOB, number, number == 1 ? "primary" : "backup", status, 1, created,
                updated, started, started == null ? null : started.plusSeconds(1), finished, null, null, null, null,
                lost, lost == null ? null : "ab".repeat(32), null, unknown, lost == null ? null : "{\"x\":1}",
                started == null ? null : started.plusSeconds(20));
    }

    private static Job job(JobStatus status, Instant finished) {
        return new Job(JOB, "alice", "k", "0".repeat(64), Json.parse("{}"), "sentiment", "primary",
                List.of("backup"), status, 2, null, status == JobStatus.SUCCEEDED ? Json.parse("{\"ok\":true}") : null,
                null, null, t(0), t(20), finished);
    }

    /** The reverse-order finish: A times out, is cancelled, B wins, then A's late answer is discarded. */
    private static JobHistory reverseOrderFinish() {
        Attempt a = attempt(1, AttemptStatus.DISCARDED, t(0), t(1), t(3), t(5), t(12), LossReason.ATTEMPT_CANCELLED);
        Attempt b = attempt(2, AttemptStatus.SUCCEEDED, t(6), t(7), null, t(9), t(9), null);
        OperatorAction cancel = new OperatorAction(JOB, a.id(), "ops", OperatorAction.RESOLVE_CANCELLED, "hanging",
                t(5));
        return new JobHistory(job(JobStatus.SUCCEEDED, t(9)), List.of(a, b), List.of(cancel));
    }

    @Test
    void everyTransitionOfEveryAttemptIsAnEventInTheOrderItHappened() {
        List<Event> events = JobTimeline.events(reverseOrderFinish());

        assertEquals(List.of(Type.ATTEMPT_CREATED, Type.ATTEMPT_STARTED, Type.ATTEMPT_UNKNOWN,
                        Type.ATTEMPT_CANCELLED, Type.OPERATOR_ACTION, Type.ATTEMPT_CREATED, Type.ATTEMPT_STARTED,
                        Type.ATTEMPT_SUCCEEDED, Type.JOB_FINISHED, Type.ATTEMPT_DISCARDED),
                events.stream().map(Event::type).toList());
        assertEquals("5.4-1-1", events.get(events.size() - 1).position().text());
        Event succeeded = events.get(7);
        assertEquals(2000, succeeded.latency().toMillis());
    }

    @Test
    void resumingFromAnyEventsPositionSendsExactlyTheEventsAfterIt() {
        JobHistory history = reverseOrderFinish();
        List<Event> all = JobTimeline.events(history);
        for (int i = 0; i < all.size(); i++) {
            Position told = Position.parse(all.get(i).position().text());
            List<Event> rest = JobTimeline.after(history, told);
            assertEquals(all.subList(i + 1, all.size()).stream().map(Event::type).toList(),
                    rest.stream().map(Event::type).toList(), "after event " + i);
        }
    }

    @Test
    void anEventWhoseClockIsEarlierThanOneAlreadySentIsStillSent() {
        // given a reader told everything up to B's start, while A's UNKNOWN (clock t(3)) was not yet committed
        Attempt aLive = attempt(1, AttemptStatus.STARTING, t(0), t(1), null, null, t(1), null);
        Attempt b = attempt(2, AttemptStatus.STARTING, t(2), t(4), null, null, t(4), null);
        JobHistory before = new JobHistory(job(JobStatus.RUNNING, null), List.of(aLive, b), List.of());
        Position told = JobTimeline.events(before).get(3).position();

        // when A's UNKNOWN commits with a timestamp before B's start
        Attempt aUnknown = attempt(1, AttemptStatus.UNKNOWN, t(0), t(1), t(3), null, t(3), null);
        JobHistory after = new JobHistory(job(JobStatus.RUNNING, null), List.of(aUnknown, b), List.of());

        // then resuming from the reader's position sends it: positions are sets, not times
        assertEquals(List.of(Type.ATTEMPT_UNKNOWN), JobTimeline.after(after, told).stream().map(Event::type).toList());
    }

    @Test
    void aPositionThatIsNotOursReadsAsTheStartSoAResumeRepeatsRatherThanSkips() {
        for (String garbage : new String[] {null, "", "x", "1.2", "9-0-0", "1-0-2", "1--1-0", "1.a-0-0"}) {
            assertEquals(Position.START, Position.parse(garbage), String.valueOf(garbage));
        }
        assertEquals("1.2-3-0", Position.parse("1.2-3-0").text());
    }

    @Test
    void aFinishedJobMayStillChangeWhileOneOfItsAttemptsIsLive() {
        Attempt live = attempt(1, AttemptStatus.UNKNOWN, t(0), t(1), t(3), null, t(3), null);
        Attempt cancelledJobsOther = attempt(2, AttemptStatus.CANCELLED, t(4), null, null, t(5), t(5), null);
        assertTrue(JobTimeline.mayChange(new JobHistory(job(JobStatus.CANCELLED, t(5)), List.of(live), List.of()),
                t(6)));
        assertFalse(JobTimeline.mayChange(new JobHistory(job(JobStatus.CANCELLED, t(5)),
                List.of(cancelledJobsOther), List.of()), t(6)));
        assertTrue(JobTimeline.mayChange(new JobHistory(job(JobStatus.RUNNING, null), new ArrayList<>(),
                List.of()), t(6)));
    }

    @Test
    void anAttemptEndedOutOfBandWhileItsCallRanMayStillAnswerUntilItsWorkerCountsAsVanished() {
        // given A resolved FAILED by an operator while UNKNOWN (its call may still answer until t(21)), B won
        Attempt resolved = attempt(1, AttemptStatus.FAILED, t(0), t(1), t(3), t(4), t(4), null);
        Attempt won = attempt(2, AttemptStatus.SUCCEEDED, t(4), t(5), null, t(6), t(6), null);
        OperatorAction resolve = new OperatorAction(JOB, resolved.id(), "ops", OperatorAction.RESOLVE_FAILED,
                "hanging", t(4));
        JobHistory finished = new JobHistory(job(JobStatus.SUCCEEDED, t(6)), List.of(resolved, won),
                List.of(resolve));

        // then the job may still change (the late answer would be discarded, an event) until A's abandon_after
        assertTrue(JobTimeline.mayChange(finished, t(7)));
        assertFalse(JobTimeline.mayChange(finished, t(21)));

        // and an attempt its own worker failed has said its last word
        JobHistory failedByItsWorker = new JobHistory(job(JobStatus.SUCCEEDED, t(6)), List.of(resolved, won),
                List.of());
        assertFalse(JobTimeline.mayChange(failedByItsWorker, t(7)));

        // and a started attempt cancelled with its job may answer too, until its abandon_after
        Attempt cancelled = attempt(1, AttemptStatus.CANCELLED, t(0), t(1), null, t(2), t(2), null);
        JobHistory cancelledJob = new JobHistory(job(JobStatus.CANCELLED, t(2)), List.of(cancelled), List.of());
        assertTrue(JobTimeline.mayChange(cancelledJob, t(3)));
        assertFalse(JobTimeline.mayChange(cancelledJob, t(22)));
    }

    @Test
    void anAnswerThatLostTheCompareAndSwapIsADiscardWithoutAnEndBeforeIt() {
        Attempt lost = attempt(1, AttemptStatus.DISCARDED, t(0), t(1), null, t(8), t(8), LossReason.LOST_CAS);
        List<Type> types = JobTimeline.events(new JobHistory(job(JobStatus.SUCCEEDED, t(7)), List.of(lost),
                List.of())).stream().map(Event::type).toList();
        assertEquals(List.of(Type.ATTEMPT_CREATED, Type.ATTEMPT_STARTED, Type.JOB_FINISHED, Type.ATTEMPT_DISCARDED),
                types);
    }
}
