package dev.onejob.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.json.Json;
import dev.onejob.testing.Await;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The two deadlines of a call, driven by a future the test completes itself (no HTTP). */
class ProviderCallTest {

    private static final Duration LONG = Duration.ofSeconds(30);
    private static final CallOutcome ANSWER = new CallOutcome.Succeeded(Json.object().put("sentiment", "positive"),
            "req_1", Duration.ofMillis(5));

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final CompletableFuture<CallOutcome> response = new CompletableFuture<>();

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    @Test
    void answerBeforeTheSoftDeadlineIsTheOutcomeAtBothDeadlines() {
        // given
        ProviderCall call = track(LONG, LONG);
        // when
        response.complete(ANSWER);
        // then
        assertSame(ANSWER, within5s(call.atSoftDeadline()));
        assertSame(ANSWER, within5s(call.atHardDeadline()));
        assertTrue(call.finalBeforeSoftDeadline());
    }

    @Test
    void softDeadlineYieldsUnknownAndTheLateAnswerComesAtTheHardDeadline() {
        // given
        ProviderCall call = track(Duration.ofMillis(50), LONG);
        // when the soft deadline passes without an answer
        CallOutcome atSoft = within5s(call.atSoftDeadline());
        response.complete(ANSWER);
        // then
        assertEquals("no answer within soft timeout PT0.05S",
                assertInstanceOf(CallOutcome.Unknown.class, atSoft).reason());
        assertFalse(call.finalBeforeSoftDeadline());
        assertSame(ANSWER, within5s(call.atHardDeadline()));
        assertSame(atSoft, within5s(call.atSoftDeadline()), "the soft outcome is not replaced by the late answer");
    }

    @Test
    void noAnswerByTheHardDeadlineYieldsUnknownAndALaterAnswerIsIgnored() {
        // given
        ProviderCall call = track(Duration.ofMillis(20), Duration.ofMillis(60));
        // when
        CallOutcome atHard = within5s(call.atHardDeadline());
        response.complete(ANSWER);
        // then
        assertEquals("no answer within hard timeout PT0.06S",
                assertInstanceOf(CallOutcome.Unknown.class, atHard).reason());
        assertSame(atHard, within5s(call.atHardDeadline()));
        assertTrue(atHard.latency().compareTo(Duration.ofMillis(60)) >= 0, atHard::toString);
    }

    @Test
    void callbacksOfTheSoftOutcomeAlreadyKnowWhetherMoreWillCome() {
        // given
        ProviderCall call = track(Duration.ofMillis(20), LONG);
        // when
        boolean seenInCallback = call.atSoftDeadline().thenApply(outcome -> call.finalBeforeSoftDeadline())
                .orTimeout(5, TimeUnit.SECONDS).join();
        // then
        assertFalse(seenInCallback);
    }

    @Test
    void failedResponseFutureBecomesAClassifiedOutcome() {
        // given
        ProviderCall call = track(LONG, LONG);
        // when
        response.completeExceptionally(new IOException("Connection reset"));
        // then
        assertInstanceOf(CallOutcome.Unknown.class, within5s(call.atSoftDeadline()));
        assertTrue(call.finalBeforeSoftDeadline());
    }

    @Test
    void closedTimerRefusesToStartACall() {
        // given
        timer.shutdown();
        // when / then
        assertThrows(IllegalStateException.class, () -> track(LONG, LONG));
    }

    @Test
    void completingAReturnedFutureDoesNotChangeTheCall() {
        // given
        ProviderCall call = track(LONG, LONG);
        // when
        call.atSoftDeadline().complete(new CallOutcome.Unknown("forged", Duration.ZERO));
        response.complete(ANSWER);
        // then
        assertSame(ANSWER, within5s(call.atSoftDeadline()));
    }

    private static CallOutcome within5s(CompletableFuture<CallOutcome> outcome) {
        return outcome.orTimeout(5, TimeUnit.SECONDS).join();
    }

    private ProviderCall track(Duration soft, Duration hard) {
        ProviderCall call = ProviderCall.withDeadlines(UUID.randomUUID(), soft, hard, System.nanoTime(), timer);
        call.settleWith(response);
        return call;
    }

    @Test
    void aHardDeadlineNoticedLateByAPausedProcessStillTakesTheAnswerThatWasWaiting() throws Exception {
        // given a call past its hard deadline, whose timer thread is held, as in a process paused with SIGSTOP
        ScheduledExecutorService paused = Executors.newSingleThreadScheduledExecutor();
        CountDownLatch resume = new CountDownLatch(1);
        paused.execute(() -> {
            try {
                resume.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            Duration hard = Duration.ofSeconds(8);
            ProviderCall call = ProviderCall.withDeadlines(UUID.randomUUID(), Duration.ofSeconds(1), hard,
                    System.nanoTime() - Duration.ofSeconds(28).toNanos(), paused);
            call.settleWith(response);

            // when the deadline is noticed 20 s late, and then the answer the socket held is read
            call.hardDeadlinePassed(false);
            response.complete(ANSWER);
            resume.countDown();

            // then the answer is the outcome, not an Unknown
            assertSame(ANSWER, within5s(call.atHardDeadline()));
        } finally {
            paused.shutdownNow();
        }
    }

    @Test
    void aHardDeadlineNoticedOnTimeGivesUpAtOnce() {
        // given a call whose hard deadline is now
        Duration hard = Duration.ofSeconds(8);
        ProviderCall call = ProviderCall.withDeadlines(UUID.randomUUID(), Duration.ofSeconds(1), hard,
                System.nanoTime() - hard.toNanos(), timer);
        call.settleWith(response);

        // when its timer runs on time
        call.hardDeadlinePassed(false);

        // then the outcome is Unknown at once, and an answer after it changes nothing
        assertTrue(call.atHardDeadline().isDone());
        response.complete(ANSWER);
        assertInstanceOf(CallOutcome.Unknown.class, within5s(call.atHardDeadline()));
    }

    @Test
    void aStreamThatKeepsSpeakingIsNeverUnknownHoweverLongItRuns() {
        // given a streamed call with a 200 ms soft and a 400 ms hard timeout, whose provider sends a line every 20 ms
        ProviderCall call = track(Duration.ofMillis(200), Duration.ofMillis(400), LONG);
        var pings = timer.scheduleAtFixedRate(call::activity, 0, 20, TimeUnit.MILLISECONDS);

        // when it streams for ten times its soft timeout, then answers
        Await.until(Duration.ofSeconds(10), "two seconds of stream",
                () -> ProviderCall.since(started).compareTo(Duration.ofSeconds(2)) >= 0);
        boolean decidedWhileStreaming = call.atSoftDeadline().isDone();
        pings.cancel(false);
        response.complete(ANSWER);

        // then nothing was decided while it spoke, and its answer is the outcome at both deadlines
        assertFalse(decidedWhileStreaming, "a stream that speaks is not judged silent");
        assertSame(ANSWER, within5s(call.atSoftDeadline()));
        assertTrue(call.streaming());
    }

    @Test
    void aStreamThatFallsSilentIsUnknownAtItsSoftDeadlineAndGivenUpAtItsHardOne() {
        // given a streamed call that spoke once and then fell silent, whose exchange can be aborted
        AtomicBoolean aborted = new AtomicBoolean();
        ProviderCall call = ProviderCall.withDeadlines(UUID.randomUUID(), Duration.ofMillis(100),
                Duration.ofMillis(300), LONG, started, timer);
        call.abortWith(() -> {
            aborted.set(true);
            response.completeExceptionally(new CancellationException());
        }, () -> false);
        call.settleWith(response);
        call.activity();

        // when the deadlines pass
        CallOutcome atSoft = within5s(call.atSoftDeadline());
        CallOutcome atHard = within5s(call.atHardDeadline());

        // then it is UNKNOWN at the soft deadline, and given up (the exchange aborted) at the hard one
        assertTrue(assertInstanceOf(CallOutcome.Unknown.class, atSoft).reason().contains("silent for soft timeout"),
                atSoft.toString());
        assertTrue(aborted.get(), "the exchange was aborted");
        assertTrue(assertInstanceOf(CallOutcome.Unknown.class, atHard).reason().contains("given up"),
                atHard.toString());
    }

    @Test
    void aCallGivenUpBeforeItsRequestStartedToLeaveIsFailedNotSentNotUnknown() {
        // given a call whose request has not started to leave (no connection was ready) when it is given up
        AtomicBoolean sealed = new AtomicBoolean();
        ProviderCall call = ProviderCall.withDeadlines(UUID.randomUUID(), Duration.ofMillis(50),
                Duration.ofMillis(150), LONG, started, timer);
        call.abortWith(() -> response.completeExceptionally(new CancellationException()), () -> {
            sealed.set(true);
            return true;
        });
        call.settleWith(response);

        // when the deadlines pass
        CallOutcome atSoft = within5s(call.atSoftDeadline());
        CallOutcome atHard = within5s(call.atHardDeadline());

        // then: UNKNOWN at the soft deadline (it might still leave), FAILED not sent once given up and sealed
        assertInstanceOf(CallOutcome.Unknown.class, atSoft);
        assertTrue(sealed.get(), "the request was sealed before the exchange was aborted");
        CallOutcome.Failed failed = assertInstanceOf(CallOutcome.Failed.class, atHard);
        assertEquals("not_sent", failed.code());
        assertFalse(failed.sent());
        assertTrue(failed.retryable());
        assertTrue(failed.message().contains("hard timeout"), failed.message());
    }

    @Test
    void aCallGivenUpAfterItsRequestMayHaveLeftStaysUnknown() {
        // given a call whose request may have left when it is given up
        ProviderCall call = ProviderCall.withDeadlines(UUID.randomUUID(), Duration.ofMillis(50),
                Duration.ofMillis(150), LONG, started, timer);
        call.abortWith(() -> response.completeExceptionally(new CancellationException()), () -> false);
        call.settleWith(response);

        // then it is UNKNOWN at both deadlines
        assertInstanceOf(CallOutcome.Unknown.class, within5s(call.atSoftDeadline()));
        assertInstanceOf(CallOutcome.Unknown.class, within5s(call.atHardDeadline()));
    }

    @Test
    void aStreamIsGivenUpAtItsWholeAnswerBoundThoughItStillSpeaks() {
        // given a stream bounded to 500 ms in all, speaking every 20 ms
        ProviderCall call = track(Duration.ofMillis(200), Duration.ofMillis(300), Duration.ofMillis(500));
        var pings = timer.scheduleAtFixedRate(call::activity, 0, 20, TimeUnit.MILLISECONDS);

        // when the bound passes
        CallOutcome atHard = within5s(call.atHardDeadline());
        pings.cancel(false);

        // then the call was given up for its length
        assertTrue(assertInstanceOf(CallOutcome.Unknown.class, atHard).reason().contains("max_duration"),
                atHard.toString());
    }

    @Test
    void anAnswerThatCompletesBeforeTheAbortTakesEffectIsKept() {
        // given a call whose abort finds the answer already there (it completed as the deadline ran)
        ProviderCall call = ProviderCall.withDeadlines(UUID.randomUUID(), Duration.ofMillis(50),
                Duration.ofMillis(100), LONG, started, timer);
        call.abortWith(() -> response.complete(ANSWER), () -> false);
        call.settleWith(response);

        // then the late answer is the final outcome, not an Unknown
        assertInstanceOf(CallOutcome.Unknown.class, within5s(call.atSoftDeadline()));
        assertSame(ANSWER, within5s(call.atHardDeadline()));
    }

    private final long started = System.nanoTime();

    private ProviderCall track(Duration soft, Duration hard, Duration maxDuration) {
        ProviderCall call = ProviderCall.withDeadlines(UUID.randomUUID(), soft, hard, maxDuration, started, timer);
        call.settleWith(response);
        return call;
    }
}
