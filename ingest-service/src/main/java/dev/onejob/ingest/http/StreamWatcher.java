package dev.onejob.ingest.http;

import dev.onejob.core.http.HttpCall;
import dev.onejob.core.ledger.LedgerQueries.JobHistory;
import java.util.UUID;

/**
 * A watcher of one job ({@link JobWatch.Watcher}) that answers on an event stream: done once its stream is closed,
 * it keeps the job's history last seen (what its heartbeat and its wait judge by) and hands each update of an open
 * stream to {@link #follow}. An event stream of a job's timeline ({@link EventsApi}) and a streamed drop-in answer
 * ({@link DropInStreams}) are two.
 */
abstract class StreamWatcher implements JobWatch.Watcher {
    final UUID jobId;
    final HttpCall.Stream stream;
    /** The history last seen; null before the first update. */
    JobHistory last;

    StreamWatcher(UUID jobId, HttpCall.Stream stream) {
        this.jobId = jobId;
        this.stream = stream;
    }

    @Override
    public boolean done() {
        return !stream.isOpen();
    }

    @Override
    public final synchronized void update(JobHistory history) {
        if (!stream.isOpen()) {
            return;
        }
        last = history;
        follow(history);
    }

    /** What this stream does with the job's history, newly read; called while the stream is open, under its lock. */
    abstract void follow(JobHistory history);
}
