package dev.onejob.ingest.http;

import dev.onejob.core.events.AttemptChunk;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.core.ledger.JobStatus;
import dev.onejob.core.ledger.LedgerQueries.JobHistory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;

/**
 * Streamed drop-in calls ({@code "stream": true}): relays the job's one live attempt's pieces of answer as they
 * arrive ({@link AttemptChunks}), and ends the stream once the job's result is in the ledger. A job has at most one
 * live attempt, and the pieces relayed are all from one attempt, so nothing streamed can be discarded later by the
 * compare-and-swap: the stream ends normally only when that very attempt is the job's winner.
 *
 * <p>What a stream sends:
 * <ul>
 *   <li>the live attempt's pieces, in order, when the stream saw its first piece; a stream that joined after the
 *       first piece (a retry attaching mid-answer) relays nothing live and sends the stored result once the job has
 *       succeeded, as one piece;</li>
 *   <li>a job already succeeded: its stored result, as one piece (a replay);</li>
 *   <li>an attempt that fails after its pieces were relayed, a job that fails, or a wait that ends first (for a
 *       stream whose pieces flow, the wait bounds the silence between pieces, not the whole answer): an error
 *       event naming the job, its state and its attempt; the job itself goes on as the ledger decides, and a retry
 *       with the same key attaches to it.</li>
 * </ul>
 * No thread waits: a stream is one {@link JobWatch.Watcher}, one {@link AttemptChunks.Listener} and two timers.
 */
final class DropInStreams {
    private static final Duration HEARTBEAT = Duration.ofSeconds(15);
    /** How long a stream whose job has succeeded waits for its attempt's last pieces, which travel apart. */
    static final Duration TAIL_GRACE = Duration.ofSeconds(5);

    private final JobWatch watch;
    private final AttemptChunks chunks;

    DropInStreams(JobWatch watch, AttemptChunks chunks) {
        this.watch = watch;
        this.chunks = chunks;
    }

    void follow(HttpCall exchange, UUID jobId, DropInFormat.StreamEvents events, Duration wait, JobsApi.Later later)
            throws IOException {
        HttpCall.Stream stream = exchange.stream(200, EventsApi.EVENT_STREAM + "; charset=utf-8");
        Relay relay = new Relay(jobId, stream, events, wait);
        relay.send(events.start());
        chunks.listen(jobId, relay);
        ScheduledFuture<?> heartbeat = watch.every(relay::heartbeat, HEARTBEAT);
        ScheduledFuture<?> deadline = watch.schedule(relay::waitOver, wait);
        stream.onClose(() -> {
            heartbeat.cancel(false);
            deadline.cancel(false);
            chunks.stop(jobId, relay);
            watch.unwatch(jobId, relay);
            later.finished(exchange);
        });
        // A stream its client closed before this line has run its close hook already: watch() does not keep it.
        watch.watch(jobId, relay);
    }

    /** One stream: which attempt it relays, how far, and how it ends. */
    private final class Relay extends StreamWatcher implements AttemptChunks.Listener {
        private final DropInFormat.StreamEvents events;
        /** The attempt whose pieces were relayed (from its first), or null while none was. */
        private UUID relaying;
        private int next;
        private boolean complete;
        /** A piece was missed: what was relayed cannot be completed live. */
        private boolean broken;
        /** The job's history once it succeeded while the last pieces were still on their way. */
        private JobHistory succeeded;

        private final Duration wait;
        /** When the last piece was relayed ({@link System#nanoTime()}). */
        private long lastPiece;

        Relay(UUID jobId, HttpCall.Stream stream, DropInFormat.StreamEvents events, Duration wait) {
            super(jobId, stream);
            this.events = events;
            this.wait = wait;
        }

        @Override
        public synchronized void chunk(AttemptChunk chunk) {
            if (!stream.isOpen() || broken) {
                return;
            }
            if (relaying == null) {
                if (chunk.seq() != 0) {
                    return; // joined after this attempt's first piece: its stored result is sent at the end
                }
                relaying = chunk.attemptId();
            }
            if (!chunk.attemptId().equals(relaying)) {
                return;
            }
            if (chunk.seq() != next) {
                broken = true;
                return;
            }
            next++;
            lastPiece = System.nanoTime();
            if (!chunk.text().isEmpty()) {
                send(events.delta(chunk.text()));
            }
            if (chunk.last()) {
                complete = true;
                if (succeeded != null) {
                    end(succeeded);
                }
            }
        }

        @Override
        void follow(JobHistory history) {
            JobStatus status = history.job().status();
            if (status == JobStatus.SUCCEEDED) {
                succeededJob(history);
                return;
            }
            if (status.isFinished()) {
                fail(history, "job " + jobId + " is " + status + ": " + history.job().errorMessage());
                return;
            }
            Optional<Attempt> relayed = attempt(history, relaying);
            if (relayed.isPresent() && relayed.get().status() == AttemptStatus.FAILED) {
                fail(history, "attempt " + relaying + " failed after part of its answer was streamed ("
                        + relayed.get().errorCode() + "); job " + jobId + " goes on, and a retry with the same "
                        + "Idempotency-Key attaches to it");
            }
        }

        private void succeededJob(JobHistory history) {
            UUID winner = history.job().completedBy();
            if (relaying == null) {
                // Nothing relayed live (a replay, or a stream that joined late): the stored result, as one piece.
                Optional<DropInFormat.Finished> finished = DropInApi.succeeded(null, history);
                finished.ifPresent(f -> send(events.delta(f.text())));
                end(history);
            } else if (!relaying.equals(winner) || broken) {
                fail(history, "job " + jobId + " SUCCEEDED, but the pieces streamed were not all of its answer; "
                        + "a retry with the same Idempotency-Key returns the whole answer");
            } else if (complete) {
                end(history);
            } else if (succeeded == null) {
                succeeded = history;
                watch.schedule(this::tailOver, TAIL_GRACE);
            }
        }

        private synchronized void tailOver() {
            if (stream.isOpen() && succeeded != null && !complete) {
                fail(succeeded, "job " + jobId + " SUCCEEDED, but the last pieces of its answer did not arrive "
                        + "within " + TAIL_GRACE.toSeconds() + " s; a retry with the same Idempotency-Key returns "
                        + "the whole answer");
            }
        }

        private void end(JobHistory history) {
            DropInApi.succeeded(null, history).ifPresent(finished -> send(events.end(finished)));
            stream.close();
        }

        private void fail(JobHistory history, String message) {
            send(List.of(events.error(DropInProblems.unfinishedOrFailed(history), message)));
            stream.close();
        }

        /**
         * The wait is over. A stream whose pieces still flow is not cut: the wait then bounds the silence between
         * pieces, so a long answer streams to its end.
         */
        synchronized void waitOver() {
            if (stream.isOpen() && relaying != null && !complete && !broken
                    && System.nanoTime() - lastPiece < wait.toNanos()) {
                watch.schedule(this::waitOver, wait);
                return;
            }
            if (stream.isOpen()) {
                JobHistory now = last;
                if (now == null) {
                    stream.close();
                    return;
                }
                fail(now, DropInProblems.unfinishedOrFailed(now).getMessage());
            }
        }

        synchronized void heartbeat() {
            if (!stream.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8))) {
                stream.close();
            }
        }

        private void send(List<String> frames) {
            for (String frame : frames) {
                stream.write(frame.getBytes(StandardCharsets.UTF_8));
            }
        }

        private Optional<Attempt> attempt(JobHistory history, UUID attemptId) {
            return attemptId == null ? Optional.empty()
                    : history.attempts().stream().filter(a -> a.id().equals(attemptId)).findFirst();
        }
    }
}
