package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.ledger.LedgerQueries;
import dev.onejob.core.ledger.LedgerQueries.JobHistory;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * {@code Prefer: wait=N}: answers a request with its job as soon as the job is finished, or after N seconds with the
 * job as it is then, and says so in {@code Preference-Applied}. The request holds no thread meanwhile; it is one
 * {@link JobWatch.Watcher} and one timer entry. Every waiter on a job (a duplicate submission, a second reader) is
 * woken by the same read.
 */
final class JobWaits {
    private final JobWatch watch;
    private final LedgerQueries queries;

    JobWaits(JobWatch watch, LedgerQueries queries) {
        this.watch = watch;
        this.queries = queries;
    }

    /**
     * Answers {@code exchange} with {@code status} and {@code view} of the job once it is finished or {@code wait} is
     * over; {@code later} records the request when it is answered.
     */
    void answerWhenFinished(HttpCall exchange, UUID jobId, Duration wait, int status,
                            Function<JobHistory, ObjectNode> view, JobsApi.Later later) {
        exchange.setHeader("Preference-Applied", Prefer.applied(wait));
        whenFinished(exchange, jobId, wait, history -> Exchanges.sendJson(exchange, status, view.apply(history)),
                later);
    }

    /** Sends one answer: the job as it was when it finished, or when the wait was over. */
    interface Answer {
        void send(JobHistory history) throws IOException;
    }

    /**
     * Calls {@code answer} once, with the job's history, as soon as the job is finished or {@code wait} is over;
     * {@code later} records the request when it is answered, and answers a failure to read the job.
     */
    void whenFinished(HttpCall exchange, UUID jobId, Duration wait, Answer answer, JobsApi.Later later) {
        exchange.later();
        Wait waiting = new Wait(exchange, jobId, answer, later);
        waiting.deadline = watch.schedule(waiting::expire, wait);
        // A deadline that fired before this line answered already: watch() does not keep an answered wait.
        watch.watch(jobId, waiting);
    }

    private final class Wait implements JobWatch.Watcher {
        private final HttpCall exchange;
        private final UUID jobId;
        private final Answer send;
        private final JobsApi.Later later;
        private final AtomicBoolean answered = new AtomicBoolean();
        private volatile ScheduledFuture<?> deadline;

        Wait(HttpCall exchange, UUID jobId, Answer send, JobsApi.Later later) {
            this.exchange = exchange;
            this.jobId = jobId;
            this.send = send;
            this.later = later;
        }

        @Override
        public boolean done() {
            return answered.get();
        }

        @Override
        public void update(JobHistory history) {
            if (history.job().status().isFinished()) {
                answer(history, null);
            }
        }

        /** The wait is over: the job as it is now. */
        void expire() {
            try {
                answer(queries.history(jobId).orElseThrow(() -> Problem.notFound("no such job")), null);
            } catch (RuntimeException e) {
                answer(null, e);
            }
        }

        private void answer(JobHistory history, RuntimeException failure) {
            if (!answered.compareAndSet(false, true)) {
                return;
            }
            watch.unwatch(jobId, this);
            ScheduledFuture<?> timer = deadline;
            if (timer != null) {
                timer.cancel(false);
            }
            try {
                if (failure != null) {
                    later.failed(exchange, failure);
                } else {
                    send.send(history);
                }
            } catch (IOException | RuntimeException e) {
                later.failed(exchange, e);
            } finally {
                later.finished(exchange);
            }
        }
    }
}
