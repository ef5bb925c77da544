package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.JobTimeline;
import dev.onejob.core.ledger.JobTimeline.Position;
import dev.onejob.core.ledger.LedgerQueries;
import dev.onejob.core.ledger.LedgerQueries.JobHistory;
import dev.onejob.ingest.Principal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;

/**
 * {@code GET /v1/jobs/{id}/events}: what happened to a job ({@link JobTimeline}), as JSON, or followed live as
 * Server-Sent Events when the caller accepts {@code text/event-stream}. A stream sends what the caller has not seen
 * (all of it, or what follows its {@code Last-Event-ID}), then each event as the ledger shows it, and ends once the job
 * is finished and none of its attempts may still answer (one ended out of band may, until its abandon_after); a reconnect with nothing left to send gets 204, which tells an
 * EventSource to stop. A stream is one {@link JobWatch.Watcher}: no thread, no query of its own.
 */
final class EventsApi {
    static final String EVENT_STREAM = "text/event-stream";
    private static final Duration HEARTBEAT = Duration.ofSeconds(15);

    private final LedgerQueries queries;
    private final JobWatch watch;

    EventsApi(LedgerQueries queries, JobWatch watch) {
        this.queries = queries;
        this.watch = watch;
    }

    void events(HttpCall exchange, Principal caller, String id, JobsApi.Later later) throws IOException {
        JobHistory history = JobsApi.uuid(id).flatMap(queries::history)
                .filter(h -> h.job().ownerId().equals(caller.ownerId()))
                .orElseThrow(() -> Problem.notFound("no such job"));
        String accept = exchange.header("Accept");
        if (accept == null || !accept.toLowerCase(Locale.ROOT).contains(EVENT_STREAM)) {
            ObjectNode body = Json.object();
            ArrayNode list = body.putArray("events");
            JobTimeline.events(history).forEach(event -> list.add(JobJson.event(event)));
            Exchanges.sendJson(exchange, 200, body);
            return;
        }
        Position told = Position.parse(exchange.header("Last-Event-ID"));
        if (JobTimeline.after(history, told).isEmpty() && !JobTimeline.mayChange(history, Instant.now())) {
            Exchanges.send(exchange, 204, "text/plain", new byte[0]);
            return;
        }
        HttpCall.Stream stream = exchange.stream(200, EVENT_STREAM + "; charset=utf-8");
        Follower follower = new Follower(history.job().id(), stream, told);
        // A reconnecting EventSource waits this long; the first line also commits the answer's head at once.
        stream.write("retry: 2000\n\n".getBytes(StandardCharsets.UTF_8));
        ScheduledFuture<?> heartbeat = watch.every(follower::heartbeat, HEARTBEAT);
        stream.onClose(() -> {
            heartbeat.cancel(false);
            watch.unwatch(follower.jobId, follower);
            later.finished(exchange);
        });
        follower.update(history);
        // The update may have ended the stream (the job is finished), and the client may have left: the close hook
        // above has then run already, and watch() does not keep a follower that is done.
        watch.watch(history.job().id(), follower);
    }

    /** One stream: what it has told its client, and the rest as the job's history grows. */
    private static final class Follower extends StreamWatcher {
        private Position told;

        Follower(UUID jobId, HttpCall.Stream stream, Position told) {
            super(jobId, stream);
            this.told = told;
        }

        @Override
        void follow(JobHistory history) {
            List<JobTimeline.Event> events = JobTimeline.after(history, told);
            for (JobTimeline.Event event : events) {
                stream.write(frame(event));
                told = event.position();
            }
            if (!JobTimeline.mayChange(history, Instant.now())) {
                stream.close();
            }
        }

        /**
         * Keeps the connection alive, and ends the stream once nothing may change: a late answer that may come
         * until an attempt's abandon_after changes nothing when it does not come.
         */
        synchronized void heartbeat() {
            if (!stream.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8))
                    || last != null && !JobTimeline.mayChange(last, Instant.now())) {
                stream.close();
            }
        }

        private static byte[] frame(JobTimeline.Event event) {
            // JSON written on one line holds no newline, so it is one data: line.
            return ("id: " + event.position().text() + "\nevent: " + event.type().wireName() + "\ndata: "
                    + Json.write(JobJson.event(event)) + "\n\n").getBytes(StandardCharsets.UTF_8);
        }
    }
}
