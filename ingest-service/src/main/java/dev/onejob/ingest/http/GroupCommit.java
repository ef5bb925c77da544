package dev.onejob.ingest.http;

import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.NewJob;
import dev.onejob.core.ledger.SubmitOutcome;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit for HTTP submissions: the submissions that are waiting when a committer becomes free share one
 * PostgreSQL transaction and one WAL flush ({@link JobSubmissions#submitBatch}, the set-based intake the Kafka consumer
 * uses), up to {@link #maxBatch} at a time. Nothing waits on purpose: a lone submission is committed at once, alone;
 * under load, the ones that arrive while a commit is in flight go together in the next. Each gets the outcome it would
 * get alone (the unique constraint decides; a key twice in one group is created once, then replayed or a conflict),
 * and a submission PostgreSQL refuses is retried alone, so it cannot sink its neighbours.
 */
final class GroupCommit implements AutoCloseable, Admission.CommitQueue {
    private static final Logger log = LoggerFactory.getLogger(GroupCommit.class);

    private final Ledger ledger;
    private final int maxBatch;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final List<Thread> committers = new ArrayList<>();
    private final DistributionSummary batchSizes;
    private volatile boolean running = true;

    private final LongAdder committed = new LongAdder();

    private record Pending(NewJob job, CompletableFuture<SubmitOutcome> outcome, long enqueuedNanos) {
    }

    /**
     * {@code committers} threads, each committing one group at a time (at most the database pool's size is useful),
     * groups of at most {@code maxBatch} submissions.
     */
    GroupCommit(Ledger ledger, int committers, int maxBatch, MeterRegistry registry) {
        this.ledger = ledger;
        this.maxBatch = maxBatch;
        this.batchSizes = DistributionSummary.builder("onejob_http_submit_group_size")
                .description("HTTP submissions committed together in one transaction").register(registry);
        for (int i = 0; i < committers; i++) {
            Thread thread = new Thread(this::commitLoop, "http-group-commit-" + i);
            thread.setDaemon(true);
            thread.start();
            this.committers.add(thread);
        }
    }

    /**
     * The outcome of one submission, once the group it went in with has committed (completed on a committer
     * thread: continue elsewhere). A database failure fails it as it failed the group (the caller answers 503 and
     * the client retries with the same key).
     */
    CompletableFuture<SubmitOutcome> submit(NewJob job) {
        CompletableFuture<SubmitOutcome> outcome = new CompletableFuture<>();
        if (!running) {
            outcome.completeExceptionally(new IllegalStateException("the ingest service is stopping"));
            return outcome;
        }
        queue.add(new Pending(job, outcome, System.nanoTime()));
        return outcome;
    }

    private void commitLoop() {
        List<Pending> group = new ArrayList<>(maxBatch);
        while (running) {
            try {
                Pending first = queue.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                group.add(first);
                queue.drainTo(group, maxBatch - 1);
                commit(group);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                // commit() completes every future; this is a bug's last line of defence, not a path
                log.error("event=group_commit_failed error=\"{}\"", e.toString(), e);
                group.forEach(pending -> pending.outcome().completeExceptionally(e));
            } finally {
                group.clear();
            }
        }
    }

    private void commit(List<Pending> group) {
        batchSizes.record(group.size());
        List<SubmitOutcome> outcomes;
        try {
            outcomes = ledger.submissions().submitBatch(group.stream().map(Pending::job).toList());
        } catch (RuntimeException e) {
            // PostgreSQL is away (submitBatch retries data refusals one by one): every submission of the group
            // gets the same failure, and nothing of the group was written.
            group.forEach(pending -> pending.outcome().completeExceptionally(e));
            return;
        }
        committed.add(group.size());
        for (int i = 0; i < group.size(); i++) {
            group.get(i).outcome().complete(outcomes.get(i));
        }
    }

    /** How long the oldest submission not yet taken by a committer has waited; 0 when none waits. */
    @Override
    public long oldestWaitNanos() {
        Pending oldest = queue.peek();
        return oldest == null ? 0 : Math.max(0, System.nanoTime() - oldest.enqueuedNanos());
    }

    @Override
    public int waiting() {
        return queue.size();
    }

    @Override
    public long committed() {
        return committed.sum();
    }

    @Override
    public int oneRound() {
        return committers.size() * maxBatch;
    }

    @Override
    public void close() {
        running = false;
        for (Thread thread : committers) {
            try {
                thread.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Pending left;
        while ((left = queue.poll()) != null) {
            left.outcome().completeExceptionally(new IllegalStateException("the ingest service is stopping"));
        }
    }
}
