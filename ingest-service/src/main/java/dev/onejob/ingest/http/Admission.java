package dev.onejob.ingest.http;

import dev.onejob.core.http.HttpCall;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Load shedding: refuses work the service cannot do soon with 503 {@code overloaded} and a {@code Retry-After}
 * computed from how fast the backlog drains, before anything is written, instead of queueing it without bound.
 * Two bounds, each 0 for off:
 * <ul>
 *   <li>{@code HTTP_SHED_QUEUE_WAIT}: a request that waited longer than this for a server thread is refused at once,
 *       and so is a submission while the oldest submission waiting for a group commit (the wait for PostgreSQL) has
 *       waited longer than this; neither costs any database work; Retry-After is the queue's length over the rate it
 *       drains;</li>
 *   <li>{@code HTTP_SHED_BACKLOG}: a submission while more attempt commands than this wait for a worker (the
 *       {@code attempt-worker} group's lag on {@code attempt-commands}, read once a second) is refused; Retry-After
 *       is the excess over the rate the workers take commands.</li>
 * </ul>
 */
final class Admission implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Admission.class);
    static final long MAX_RETRY_AFTER_SECONDS = 120;

    private final long queueWaitNanos;
    private final long backlogBound;
    private final IntSupplier queued;
    private final CommitQueue commits;
    private volatile double commitsPerSecond;
    private long lastCommitted;
    private final LongAdder completed = new LongAdder();
    private final ScheduledExecutorService sampler;
    private volatile double completionsPerSecond;
    private volatile long lastBacklog = -1;
    private volatile double backlogDrainPerSecond;
    private long lastCompleted;
    private long lastTaken = -1;
    private long lastSampleNanos = System.nanoTime();

    /**
     * @param queued  tasks waiting for a server thread now
     * @param backlog the workers' backlog now (may throw when Kafka does not answer)
     */
    Admission(Duration queueWait, long backlogBound, IntSupplier queued, CommitQueue commits,
              Supplier<BacklogReading> backlog) {
        this.queueWaitNanos = queueWait.toNanos();
        this.backlogBound = backlogBound;
        this.queued = queued;
        this.commits = commits;
        this.sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "http-admission");
            t.setDaemon(true);
            return t;
        });
        sampler.scheduleWithFixedDelay(() -> sample(backlog), 0, 1, TimeUnit.SECONDS);
    }

    /** The submissions waiting for a group commit: the wait for PostgreSQL. */
    interface CommitQueue {
        /** How long the oldest waiting submission has waited; 0 when none waits. */
        long oldestWaitNanos();

        /** Submissions waiting now. */
        int waiting();

        /** Submissions committed in all (for the rate the queue drains). */
        long committed();

        /** The most submissions the committers take at once (committers times the largest group). */
        int oneRound();
    }

    /** The workers' backlog: commands not taken yet, and taken in all (offsets committed). */
    record BacklogReading(long waiting, long taken) {
    }

    private void sample(Supplier<BacklogReading> reader) {
        long now = System.nanoTime();
        double seconds = Math.max(1e-3, (now - lastSampleNanos) / 1e9);
        lastSampleNanos = now;
        long done = completed.sum();
        completionsPerSecond = ewma(completionsPerSecond, (done - lastCompleted) / seconds);
        lastCompleted = done;
        long committedNow = commits.committed();
        commitsPerSecond = ewma(commitsPerSecond, (committedNow - lastCommitted) / seconds);
        lastCommitted = committedNow;
        if (backlogBound <= 0) {
            return;
        }
        try {
            BacklogReading reading = reader.get();
            if (lastTaken >= 0 && reading.taken() >= lastTaken) {
                backlogDrainPerSecond = ewma(backlogDrainPerSecond, (reading.taken() - lastTaken) / seconds);
            }
            lastTaken = reading.taken();
            lastBacklog = reading.waiting();
        } catch (RuntimeException e) {
            // Kafka does not answer: no shedding on a backlog this instance cannot see (the outbox keeps commands)
            lastBacklog = -1;
            log.debug("event=backlog_unknown error=\"{}\"", e.toString());
        }
    }

    private static double ewma(double previous, double sample) {
        return previous == 0 ? sample : 0.5 * previous + 0.5 * sample;
    }

    /** Refuses a request that waited too long for a thread. */
    void admit(HttpCall call) {
        if (queueWaitNanos <= 0) {
            return;
        }
        int queuedNow = queued.getAsInt();
        double rate = completionsPerSecond;
        if (call.sinceHeadNanos() > queueWaitNanos) {
            throw overloaded("every server thread is busy: this request waited "
                    + TimeUnit.NANOSECONDS.toMillis(call.sinceHeadNanos()) + " ms for one (the bound is "
                    + TimeUnit.NANOSECONDS.toMillis(queueWaitNanos) + " ms); nothing was written",
                    retryAfter(queuedNow, rate));
        }
        // A request read late waited before its head was parsed, where it cannot be timed: the queue ahead of the
        // server's threads, over the rate they finish requests, says how long the ones behind it will wait.
        long expectedNanos = rate >= 1 ? (long) (queuedNow / rate * 1e9) : 0;
        if (expectedNanos > queueWaitNanos) {
            throw overloaded("every server thread is busy: " + queuedNow + " tasks wait for one, about "
                    + TimeUnit.NANOSECONDS.toMillis(expectedNanos) + " ms of work at the rate requests finish (the "
                    + "bound is " + TimeUnit.NANOSECONDS.toMillis(queueWaitNanos) + " ms); nothing was written",
                    retryAfter(queuedNow, rate));
        }
    }

    /** Refuses a submission while the commit queue waits too long or the workers' backlog is over its bound. */
    void admitSubmission() {
        long oldest = commits.oldestWaitNanos();
        if (queueWaitNanos > 0 && oldest > queueWaitNanos) {
            long retryAfter = retryAfter(commits.waiting(), commitsPerSecond);
            throw overloaded("PostgreSQL is behind: the oldest submission waiting for its commit has waited "
                    + TimeUnit.NANOSECONDS.toMillis(oldest) + " ms (the bound is "
                    + TimeUnit.NANOSECONDS.toMillis(queueWaitNanos) + " ms); nothing was written", retryAfter);
        }
        // The oldest's wait lags a burst: the queue it is at the head of, over the rate commits drain it, is how long
        // this one would wait.
        // Only past one round of groups: what the committers take at once is no queue, and right after a quiet
        // second the drain rate is too low to judge one by (two waiting submissions were refused that way).
        int waitingNow = commits.waiting();
        double drain = commitsPerSecond;
        long expectedNanos = drain >= 1 && waitingNow > commits.oneRound() ? (long) (waitingNow / drain * 1e9) : 0;
        if (queueWaitNanos > 0 && expectedNanos > queueWaitNanos) {
            throw overloaded("PostgreSQL is behind: " + waitingNow + " submissions wait for their commit, about "
                    + TimeUnit.NANOSECONDS.toMillis(expectedNanos) + " ms at the rate commits drain them (the bound is "
                    + TimeUnit.NANOSECONDS.toMillis(queueWaitNanos) + " ms); nothing was written",
                    retryAfter(waitingNow, drain));
        }
        long waiting = lastBacklog;
        if (backlogBound > 0 && waiting > backlogBound) {
            long retryAfter = retryAfter(waiting - backlogBound, backlogDrainPerSecond);
            throw overloaded(waiting + " attempt commands wait for a worker (the bound is " + backlogBound
                    + "); nothing was written", retryAfter);
        }
    }

    /**
     * Why the Kafka intake should wait now, or empty: the workers' backlog is at half its bound or more. Records
     * wait in Kafka, nothing lost, and HTTP callers keep the other half of the bound: one owner's stream of records
     * cannot push everyone's HTTP submissions into 503s.
     */
    Optional<String> kafkaIntakeBrake() {
        long waiting = lastBacklog;
        if (backlogBound > 0 && waiting >= Math.max(1, backlogBound / 2)) {
            return Optional.of(waiting + " attempt commands wait for a worker, half of HTTP_SHED_BACKLOG ("
                    + backlogBound + ") or more");
        }
        return Optional.empty();
    }

    /** A request finished (counted for the rate the queue drains). */
    void completed() {
        completed.increment();
    }

    /** Seconds until {@code excess} has drained at {@code perSecond}: 1 at least, 120 at most (nothing draining). */
    static long retryAfter(long excess, double perSecond) {
        if (perSecond <= 0.01) {
            return MAX_RETRY_AFTER_SECONDS;
        }
        return Math.max(1, Math.min(MAX_RETRY_AFTER_SECONDS, (long) Math.ceil(excess / perSecond)));
    }

    private static Problem overloaded(String detail, long retryAfter) {
        return new Problem(503, "overloaded", "Overloaded", detail + "; retry after " + retryAfter
                + " s with the same Idempotency-Key").with("retry_after_seconds", Long.toString(retryAfter));
    }

    @Override
    public void close() {
        sampler.shutdownNow();
    }
}
