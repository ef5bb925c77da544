package dev.onejob.providers;

import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One provider call seen through its two deadlines.
 *
 * <p>Consumes the call's final outcome (from the HTTP exchange) and the provider's soft and hard timeouts;
 * produces {@link #atSoftDeadline()} (the final outcome if it came in time, else an {@link CallOutcome.Unknown}
 * exactly at the soft deadline) and {@link #atHardDeadline()} (the final outcome if it came before the hard
 * deadline, even after the soft one, else an {@code Unknown}). Owns two timer tasks on a shared scheduler,
 * cancelled as soon as the final outcome arrives.
 *
 * <p>Typical use: publish what {@code atSoftDeadline()} yields; if {@link #finalBeforeSoftDeadline()} is then
 * false, a second outcome follows from {@code atHardDeadline()}. Callbacks run on the HTTP client's or the
 * timer's thread, so they must hand heavy or blocking work to another thread.
 */
public final class ProviderCall {

    private enum SoftResolution { FINAL, DEADLINE }

    private final UUID attemptId;
    private final CompletableFuture<CallOutcome> soft = new CompletableFuture<>();
    private final CompletableFuture<CallOutcome> hard = new CompletableFuture<>();
    private final AtomicReference<SoftResolution> softResolution = new AtomicReference<>();
    private final long startedNanos;
    // Set once by withDeadlines, before the call is shared; null for a call completed before sending.
    private ScheduledFuture<?> softTimer;
    private ScheduledFuture<?> hardTimer;

    private ProviderCall(UUID attemptId, long startedNanos) {
        this.attemptId = Objects.requireNonNull(attemptId, "attemptId");
        this.startedNanos = startedNanos;
    }

    /** A call whose outcome was known before anything was sent (e.g. a missing API key). */
    static ProviderCall completed(UUID attemptId, CallOutcome outcome) {
        ProviderCall call = new ProviderCall(attemptId, System.nanoTime());
        call.finish(outcome);
        return call;
    }

    /**
     * A call whose deadlines run {@code soft} and {@code hard} after {@code startedNanos} ({@link System#nanoTime()}
     * just before sending); arm it before sending, so a closed timer stops the call before anything leaves.
     *
     * @throws IllegalStateException when the timer no longer accepts tasks (the adapters were closed)
     */
    static ProviderCall withDeadlines(UUID attemptId, Duration soft, Duration hard, long startedNanos,
                                      ScheduledExecutorService timer) {
        ProviderCall call = new ProviderCall(attemptId, startedNanos);
        try {
            call.softTimer = timer.schedule(() -> call.softDeadlinePassed(soft, startedNanos),
                    remaining(soft, startedNanos), TimeUnit.NANOSECONDS);
            call.hardTimer = timer.schedule(() -> call.hardDeadlinePassed(hard, timer),
                    remaining(hard, startedNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            if (call.softTimer != null) {
                call.softTimer.cancel(false);
            }
            throw new IllegalStateException("the provider clients are closed: no call can be started", e);
        }
        return call;
    }

    /** Settles the call with the exchange's final outcome when it comes (an exception is classified). */
    void settleWith(CompletableFuture<CallOutcome> finalOutcome) {
        finalOutcome.whenComplete((outcome, error) -> {
            softTimer.cancel(false);
            hardTimer.cancel(false);
            finish(outcome != null ? outcome : OutcomeClassifier.forException(error, true, since(startedNanos)));
        });
    }

    public UUID attemptId() {
        return attemptId;
    }

    /** The final outcome if it arrived before the soft deadline, else an {@code Unknown} at the soft deadline. */
    public CompletableFuture<CallOutcome> atSoftDeadline() {
        return soft.copy();
    }

    /**
     * The final outcome if it arrived before the hard deadline (also when that was after the soft deadline), else
     * an {@code Unknown} at the hard deadline. Once the soft deadline has passed, this is the late outcome.
     */
    public CompletableFuture<CallOutcome> atHardDeadline() {
        return hard.copy();
    }

    /**
     * True once the final outcome arrived before the soft deadline (then both futures hold it and nothing follows);
     * false while neither has happened, or when the soft deadline came first (then {@link #atHardDeadline()} holds
     * the late outcome). Decided before {@link #atSoftDeadline()} completes, so its callbacks may ask.
     */
    public boolean finalBeforeSoftDeadline() {
        return softResolution.get() == SoftResolution.FINAL;
    }

    private void finish(CallOutcome outcome) {
        if (softResolution.compareAndSet(null, SoftResolution.FINAL)) {
            soft.complete(outcome);
        }
        hard.complete(outcome);
    }

    private void softDeadlinePassed(Duration softTimeout, long startedNanos) {
        if (softResolution.compareAndSet(null, SoftResolution.DEADLINE)) {
            soft.complete(new CallOutcome.Unknown("no answer within soft timeout " + softTimeout, since(startedNanos)));
        }
    }

    /**
     * The hard deadline's timer ran. A timer that runs much later than it was due says the process was paused (a
     * SIGSTOP, a long GC pause, a frozen VM): an answer that arrived meanwhile sits unread in the socket, and the
     * HTTP client's threads, paused too, read it only now. Giving up at once would throw away a paid answer, so a
     * late timer waits {@link #PAUSED_GRACE} for it first. A timer on time gives up at once.
     */
    void hardDeadlinePassed(Duration hardTimeout, ScheduledExecutorService timer) {
        Runnable giveUp = () -> hard.complete(new CallOutcome.Unknown("no answer within hard timeout " + hardTimeout,
                since(startedNanos)));
        long late = System.nanoTime() - startedNanos - hardTimeout.toNanos();
        if (late <= PAUSE_EVIDENCE.toNanos()) {
            giveUp.run();
            return;
        }
        try {
            timer.schedule(giveUp, PAUSED_GRACE.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            giveUp.run();
        }
    }

    /** How late a deadline's timer must run to count as evidence that the process was paused. */
    static final Duration PAUSE_EVIDENCE = Duration.ofMillis(250);
    /** How long a paused process waits for an answer that may have arrived while it was paused. */
    static final Duration PAUSED_GRACE = Duration.ofSeconds(1);

    private static long remaining(Duration timeout, long startedNanos) {
        return Math.max(0, timeout.toNanos() - (System.nanoTime() - startedNanos));
    }

    static Duration since(long startedNanos) {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    @Override
    public String toString() {
        return "ProviderCall[attemptId=" + attemptId + ", soft=" + state(soft) + ", hard=" + state(hard) + "]";
    }

    private static String state(CompletableFuture<CallOutcome> future) {
        return future.isDone() ? future.join().getClass().getSimpleName() : "pending";
    }
}
