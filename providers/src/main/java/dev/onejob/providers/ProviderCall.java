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
import java.util.function.BooleanSupplier;

/**
 * One provider call seen through its deadlines.
 *
 * <p>Consumes the call's final outcome (from the HTTP exchange), the provider's soft and hard timeouts and its
 * whole-answer bound, and, for a streamed call, its {@link #activity()} (each line of the stream as it arrives);
 * produces {@link #atSoftDeadline()} (the final outcome if it came in time, else an {@link CallOutcome.Unknown} at
 * the soft deadline) and {@link #atHardDeadline()} (the final outcome, whenever it comes). Owns two timer tasks on a
 * shared scheduler, cancelled as soon as the final outcome arrives, and the exchange's abort.
 *
 * <p>The deadlines measure silence, not length: each starts again at every sign of life. For an unstreamed call
 * there is none between sending and the answer, so they run from sending, as they always did. A streamed call whose
 * pieces keep flowing is never judged UNKNOWN, however long its answer; only {@code maxDuration} bounds it as a
 * whole. At the soft deadline an UNKNOWN is reported and the call goes on; at the hard deadline (or past
 * {@code maxDuration}) the call is given up: the exchange is aborted, and its outcome is then UNKNOWN, or a FAILED
 * that was not sent when the request had provably not started to leave (no connection was ready). A final outcome
 * that arrives is never dropped for lateness: {@code atHardDeadline()} holds whatever the exchange ended with.
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
    private final AtomicReference<String> abandoned = new AtomicReference<>();
    private final long startedNanos;
    private volatile long lastActivityNanos;
    private volatile boolean streaming;
    // Set once by withDeadlines, before the call is shared; null for a call completed before sending.
    private Duration softTimeout;
    private Duration hardTimeout;
    private Duration maxDuration;
    private ScheduledExecutorService timer;
    private volatile ScheduledFuture<?> softTimer;
    private volatile ScheduledFuture<?> hardTimer;
    private volatile Runnable abort;
    /** Keeps a request that has not started to leave from ever leaving; true when it had not. */
    private volatile BooleanSupplier sealIfUnsent = () -> false;
    /** Set by giveUp before the exchange is aborted: the request had not started to leave, and now never will. */
    private volatile boolean givenUpUnsent;

    private ProviderCall(UUID attemptId, long startedNanos) {
        this.attemptId = Objects.requireNonNull(attemptId, "attemptId");
        this.startedNanos = startedNanos;
        this.lastActivityNanos = startedNanos;
    }

    /** A call whose outcome was known before anything was sent (e.g. a missing API key). */
    static ProviderCall completed(UUID attemptId, CallOutcome outcome) {
        ProviderCall call = new ProviderCall(attemptId, System.nanoTime());
        call.finish(outcome);
        return call;
    }

    /** {@link #withDeadlines(UUID, Duration, Duration, Duration, long, ScheduledExecutorService)} bounded by hard. */
    static ProviderCall withDeadlines(UUID attemptId, Duration soft, Duration hard, long startedNanos,
                                      ScheduledExecutorService timer) {
        return withDeadlines(attemptId, soft, hard, hard, startedNanos, timer);
    }

    /**
     * A call whose deadlines run {@code soft} and {@code hard} after {@code startedNanos} ({@link System#nanoTime()}
     * just before sending) or after its last activity, and which ends {@code maxDuration} after it started at the
     * latest; arm it before sending, so a closed timer stops the call before anything leaves.
     *
     * @throws IllegalStateException when the timer no longer accepts tasks (the adapters were closed)
     */
    static ProviderCall withDeadlines(UUID attemptId, Duration soft, Duration hard, Duration maxDuration,
                                      long startedNanos, ScheduledExecutorService timer) {
        ProviderCall call = new ProviderCall(attemptId, startedNanos);
        call.softTimeout = soft;
        call.hardTimeout = hard;
        call.maxDuration = maxDuration.compareTo(hard) < 0 ? hard : maxDuration;
        call.timer = timer;
        try {
            call.softTimer = timer.schedule(call::softDeadlinePassed, remaining(soft, startedNanos),
                    TimeUnit.NANOSECONDS);
            call.hardTimer = timer.schedule(() -> call.hardDeadlinePassed(false), remaining(hard, startedNanos),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            if (call.softTimer != null) {
                call.softTimer.cancel(false);
            }
            throw new IllegalStateException("the provider clients are closed: no call can be started", e);
        }
        return call;
    }

    /**
     * How the call is given up at its hard deadline: {@code sealIfUnsent} first, which stops a request that has not
     * started to leave from ever leaving and says whether it had not (such a call ends FAILED, not sent, instead of
     * UNKNOWN: nothing reached the provider, so nothing is in doubt), then {@code abort}, which cancels the exchange,
     * whose outcome follows.
     */
    void abortWith(Runnable abort, BooleanSupplier sealIfUnsent) {
        this.sealIfUnsent = sealIfUnsent;
        this.abort = abort;
    }

    /**
     * Settles the call with the exchange's final outcome when it comes (an exception is classified; one caused by
     * giving the call up is UNKNOWN, with the reason it was given up).
     */
    void settleWith(CompletableFuture<CallOutcome> finalOutcome) {
        finalOutcome.whenComplete((outcome, error) -> {
            cancelTimers();
            String givenUp = abandoned.get();
            // The exchange cancelled by giveUp ends in an error (classified UNKNOWN): name why it was given up. An
            // answer that completed first is kept.
            if (givenUp != null && (outcome == null || outcome instanceof CallOutcome.Unknown)) {
                finish(givenUpUnsent
                        ? CallOutcome.Failed.notSent("not_sent", givenUp + "; no connection to the provider was ready,"
                                + " so the request was never written", true, since(startedNanos))
                        : new CallOutcome.Unknown(givenUp, since(startedNanos)));
            } else {
                finish(outcome != null ? outcome : OutcomeClassifier.forException(error, true, since(startedNanos)));
            }
        });
    }

    /** A sign of life from a streamed call: a line of its stream arrived. Moves its deadlines on. */
    void activity() {
        streaming = true;
        lastActivityNanos = System.nanoTime();
    }

    public UUID attemptId() {
        return attemptId;
    }

    /** Whether the provider has streamed anything yet (a streamed call whose deadlines move with its pieces). */
    public boolean streaming() {
        return streaming;
    }

    /** {@link System#nanoTime()} of the call's last sign of life: its sending, or its stream's last line. */
    public long lastActivityNanos() {
        return lastActivityNanos;
    }

    /** The final outcome if it arrived before the soft deadline, else an {@code Unknown} at the soft deadline. */
    public CompletableFuture<CallOutcome> atSoftDeadline() {
        return soft.copy();
    }

    /**
     * The final outcome, whenever it arrives (also long after the soft deadline), or an {@code Unknown} once the call
     * was given up at its hard deadline or its whole-answer bound.
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

    private void cancelTimers() {
        if (softTimer != null) {
            softTimer.cancel(false);
        }
        if (hardTimer != null) {
            hardTimer.cancel(false);
        }
    }

    /** The soft deadline's timer ran: UNKNOWN if the call has been silent that long, else look again later. */
    private void softDeadlinePassed() {
        long quiet = System.nanoTime() - lastActivityNanos;
        if (quiet < softTimeout.toNanos() && !hard.isDone()) {
            reschedule(true, softTimeout.toNanos() - quiet);
            return;
        }
        if (softResolution.compareAndSet(null, SoftResolution.DEADLINE)) {
            soft.complete(new CallOutcome.Unknown(streaming
                    ? "the provider's stream has been silent for soft timeout " + softTimeout
                    + "; the call goes on" : "no answer within soft timeout " + softTimeout, since(startedNanos)));
        }
    }

    /**
     * The hard deadline's timer ran. A timer that runs much later than it was due says the process was paused (a
     * SIGSTOP, a long GC pause, a frozen VM): an answer that arrived meanwhile sits unread in the socket, and the
     * HTTP client's threads, paused too, read it only now. Giving up at once would throw away a paid answer, so a
     * late timer waits {@link #PAUSED_GRACE} for it first, then looks again ({@code afterGrace}): a stream whose lines
     * were read meanwhile goes on. A timer on time gives up at once, unless the stream spoke since: then it looks again
     * when the silence could next reach the hard timeout.
     */
    void hardDeadlinePassed(boolean afterGrace) {
        long now = System.nanoTime();
        long quiet = now - lastActivityNanos;
        long total = now - startedNanos;
        long silenceDue = lastActivityNanos + hardTimeout.toNanos();
        long lengthDue = startedNanos + maxDuration.toNanos();
        if (quiet < hardTimeout.toNanos() && total < maxDuration.toNanos()) {
            reschedule(false, Math.min(silenceDue, lengthDue) - now);
            return;
        }
        String reason = !streaming ? "no answer within hard timeout " + hardTimeout
                : quiet >= hardTimeout.toNanos() ? "the provider's stream was silent for hard timeout " + hardTimeout
                + "; the call was given up"
                : "the streamed answer ran past max_duration " + maxDuration + "; the call was given up";
        long late = now - Math.min(silenceDue, lengthDue);
        if (afterGrace || late <= PAUSE_EVIDENCE.toNanos()) {
            giveUp(reason);
            return;
        }
        try {
            hardTimer = timer.schedule(() -> hardDeadlinePassed(true), PAUSED_GRACE.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            giveUp(reason);
        }
    }

    /**
     * Gives the call up: the exchange is aborted and its outcome (UNKNOWN, with {@code reason}) follows from
     * {@link #settleWith}; an answer that completed first is kept. Without an exchange, UNKNOWN at once.
     */
    private void giveUp(String reason) {
        if (hard.isDone() || !abandoned.compareAndSet(null, reason)) {
            return;
        }
        Runnable cancel = abort;
        if (cancel == null) {
            hard.complete(new CallOutcome.Unknown(reason, since(startedNanos)));
        } else {
            givenUpUnsent = sealIfUnsent.getAsBoolean();
            cancel.run();
        }
    }

    private void reschedule(boolean softTask, long delayNanos) {
        try {
            var next = timer.schedule(softTask ? this::softDeadlinePassed : () -> hardDeadlinePassed(false),
                    Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            if (softTask) {
                softTimer = next;
            } else {
                hardTimer = next;
            }
            if (hard.isDone()) {
                next.cancel(false);
            }
        } catch (RejectedExecutionException e) {
            // The clients are closing: the exchange is cancelled with them, and its outcome settles the call.
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
