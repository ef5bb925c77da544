package dev.onejob.ingest.http;

import dev.onejob.core.ledger.LedgerQueries;
import dev.onejob.core.ledger.LedgerQueries.JobHistory;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests of this instance that follow jobs: {@code Prefer: wait} answers and event streams. None holds a thread
 * while it waits. They are woken in two ways, neither per request: {@link #changed} for the jobs one
 * {@code job-results} subscription saw finish (the moment a job ends, whichever instance or service ended it), and
 * one batched read of every watched job each {@code recheck} (the transitions no topic announces, such as a start or
 * a timeout, and a safety net while Kafka is away). Either way the histories of all the jobs concerned are read in
 * one go ({@link LedgerQueries#histories}) and handed to their watchers on the server's threads.
 *
 * <p>A watcher that is {@link Watcher#done() done} (its stream closed, its wait answered) is dropped wherever the
 * watch meets it: when it is registered, and before and after each update. So a watcher whose own unwatch ran before
 * its registration (a stream the job's end or its client closed first) is never left behind to be read every
 * {@code recheck} for good.
 */
public final class JobWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JobWatch.class);

    /** A request following one job. Called from several threads; each call carries the job's history as it is now. */
    public interface Watcher {
        void update(JobHistory history);

        /** True once nothing more is wanted (the stream is closed, the wait answered): the watch drops it. */
        boolean done();
    }

    private final LedgerQueries queries;
    private final Executor executor;
    private final Map<UUID, Set<Watcher>> watchers = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "job-watch");
        thread.setDaemon(true);
        return thread;
    });

    public JobWatch(LedgerQueries queries, Executor executor, Duration recheck) {
        this.queries = queries;
        this.executor = executor;
        timer.scheduleWithFixedDelay(this::recheck, recheck.toMillis(), recheck.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Follows {@code jobId} and reads it once at once, so a job that changed before this call is seen too. A watcher
     * already done is not kept, even if its own {@link #unwatch} ran before this call.
     */
    public void watch(UUID jobId, Watcher watcher) {
        watchers.computeIfAbsent(jobId, id -> ConcurrentHashMap.newKeySet()).add(watcher);
        // Checked after adding: a watcher done from here on is removed by whoever made it done, or by the next read.
        if (watcher.done()) {
            unwatch(jobId, watcher);
            return;
        }
        executor.execute(() -> deliver(List.of(jobId)));
    }

    public void unwatch(UUID jobId, Watcher watcher) {
        watchers.computeIfPresent(jobId, (id, set) -> {
            set.remove(watcher);
            return set.isEmpty() ? null : set;
        });
    }

    /** Jobs something announced a change of (their result was published); unwatched ones are skipped unread. */
    public void changed(Collection<UUID> jobIds) {
        List<UUID> watched = jobIds.stream().filter(watchers::containsKey).distinct().toList();
        if (!watched.isEmpty()) {
            executor.execute(() -> deliver(watched));
        }
    }

    /** Runs {@code task} after {@code delay} on the watch's timer (a wait's deadline, a stream's heartbeat). */
    public ScheduledFuture<?> schedule(Runnable task, Duration delay) {
        return timer.schedule(() -> executor.execute(task), delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    public ScheduledFuture<?> every(Runnable task, Duration period) {
        return timer.scheduleAtFixedRate(() -> executor.execute(task), period.toMillis(), period.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Requests following jobs now. */
    public int watching() {
        return watchers.values().stream().mapToInt(Set::size).sum();
    }

    private void recheck() {
        if (!watchers.isEmpty()) {
            deliver(List.copyOf(watchers.keySet()));
        }
    }

    private void deliver(List<UUID> jobIds) {
        Map<UUID, JobHistory> histories;
        try {
            histories = queries.histories(jobIds);
        } catch (RuntimeException e) {
            // PostgreSQL away: the next recheck tries again; a wait's deadline still answers (with what it can).
            log.warn("event=job_watch_read_failed jobs={} error={}", jobIds.size(), e.toString());
            return;
        }
        histories.forEach((jobId, history) -> {
            Set<Watcher> set = watchers.get(jobId);
            if (set == null) {
                return;
            }
            for (Watcher watcher : List.copyOf(set)) {
                try {
                    if (!watcher.done()) {
                        watcher.update(history);
                    }
                    if (watcher.done()) {
                        unwatch(jobId, watcher);
                    }
                } catch (RuntimeException e) {
                    log.error("event=job_watcher_failed job={} error={}", jobId, e.toString(), e);
                    unwatch(jobId, watcher);
                }
            }
        });
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
