package dev.onejob.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.Results;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Phase 5, HTTP overload: {@code POST /v1/jobs} offered, open loop, at twice the best rate the HTTP ingest phase
 * measured, for {@code overloadSeconds}. What it shows: the service sheds what it cannot do soon (503 {@code overloaded} or
 * 429, each with {@code Retry-After}) instead of queueing it, so the requests it accepts keep a latency close to the
 * half-load one; nothing else fails; and every accepted submission has exactly one job (the invariants count the
 * jobs under this phase's keys against the distinct keys that got a 2xx, so a refused one that was written anyway
 * would show too).
 */
record OverloadPhase(BenchContext context) {
    void run() throws Exception {
        BenchSettings settings = context.settings();
        double rate = 2 * context.results().positive(Phases.HTTP_INGEST, "max requests/s",
                "the HTTP ingest phase measured no maximum to offer twice");
        String ingest = context.ingestUrl();
        LoadPlan plan = context.ingestLoad("overload", settings.repeatShare(), "none")
                .openAtRate("overload", rate, settings.overloadSeconds());
        Map<String, JsonNode> steps;
        ServerGauges gauges = new ServerGauges(ingest + "/metrics", context.files().operatorToken());
        Thread sampler = new Thread(gauges, "bench-overload-gauges");
        sampler.setDaemon(true);
        try (var window = context.window(Phases.HTTP_OVERLOAD, List.of(context.services().ingest()))) {
            sampler.start();
            steps = plan.run(context, "loadgen-overload");
        } finally {
            gauges.stop();
            sampler.join(5_000);
        }
        JsonNode step = steps.get("overload");
        context.expectedJobs().put("overload", step.path("accepted_distinct_jobs").asLong());
        addAnswers(rate, step, Answers.of(step));
        addGauges(gauges);
    }

    /** The step's answers by kind: 2xx, 503, 429, and any other status or no answer at all. */
    private record Answers(long accepted, long shed, long limited, long other) {
        static Answers of(JsonNode step) {
            long accepted = 0;
            long shed = 0;
            long limited = 0;
            long other = step.path("errors").asLong();
            Iterator<Map.Entry<String, JsonNode>> statuses = step.path("statuses").fields();
            while (statuses.hasNext()) {
                Map.Entry<String, JsonNode> status = statuses.next();
                int code = Integer.parseInt(status.getKey());
                long count = status.getValue().asLong();
                if (code >= 200 && code < 300) {
                    accepted += count;
                } else if (code == 503) {
                    shed += count;
                } else if (code == 429) {
                    limited += count;
                } else {
                    other += count;
                }
            }
            return new Answers(accepted, shed, limited, other);
        }
    }

    private void addAnswers(double rate, JsonNode step, Answers answers) {
        Results results = context.results();
        double seconds = context.settings().overloadSeconds();
        results.add(Phases.HTTP_OVERLOAD, "offered requests/s", rate, "requests/s", "twice the HTTP ingest phase's "
                + "best, open loop for " + seconds + " s; " + step.path("sent").asLong() + " requests, statuses "
                + step.path("statuses"));
        double answering = step.path("seconds").asDouble(seconds);
        results.add(Phases.HTTP_OVERLOAD, "accepted requests/s", answers.accepted() / answering, "requests/s",
                "2xx answers, over the " + String.format("%.1f", answering)
                        + " s from the first request to the last answer");
        results.add(Phases.HTTP_OVERLOAD, "accepted p50 ms", step.path("accepted_latency").path("p50_ms").asDouble(),
                "ms", "2xx answers only, from the intended send time");
        results.add(Phases.HTTP_OVERLOAD, "accepted p99 ms", step.path("accepted_latency").path("p99_ms").asDouble(),
                "ms", "");
        results.add(Phases.HTTP_OVERLOAD, "shed (503)", answers.shed(), "requests", "503 overloaded: a server "
                + "thread, or the group commit, had kept a request waiting past HTTP_SHED_QUEUE_WAIT; nothing written");
        results.add(Phases.HTTP_OVERLOAD, "over the owner's share (429)", answers.limited(), "requests",
                "RATE_LIMIT_PER_OWNER");
        results.add(Phases.HTTP_OVERLOAD, "refusals without Retry-After", step.path("refused_without_retry_after")
                .asDouble(), "requests", "503 and 429 answers that lacked the header");
        results.add(Phases.HTTP_OVERLOAD, "other errors", answers.other(), "requests", "any other non-2xx answer, "
                + "and transport errors: " + step.path("errors").asLong() + " without an answer (the first: "
                + step.path("first_error").asText("none") + ")");
    }

    private void addGauges(ServerGauges gauges) {
        Results results = context.results();
        results.add(Phases.HTTP_OVERLOAD, "peak tasks waiting for a server thread", gauges.peakQueuedTasks, "tasks",
                "the ingest's onejob_http_server_queued_tasks, sampled every 250 ms: where a request waits before its "
                        + "head is read");
        results.add(Phases.HTTP_OVERLOAD, "peak submissions waiting for their commit", gauges.peakCommitQueue,
                "submissions", "onejob_http_submit_queue, sampled likewise");
        results.add(Phases.HTTP_OVERLOAD, "slowest accepted submission, server side", gauges.peakServerSeconds * 1000,
                "ms", "onejob_http_requests_seconds_max for POST /v1/jobs 201: from the head read to the answer; what "
                        + "the accepted p99 has beyond it waited outside the service's threads (sockets, the load "
                        + "generator)");
    }

    /** Samples the ingest's own gauges while the step runs. */
    private static final class ServerGauges implements Runnable {
        private final URI uri;
        private final HttpClient client = HttpClient.newHttpClient();
        private final String operatorToken;
        private volatile boolean running = true;
        volatile double peakQueuedTasks;
        volatile double peakCommitQueue;
        volatile double peakServerSeconds;

        /** {@code /metrics} on the API's port answers an operator's token. */
        ServerGauges(String url, String operatorToken) {
            this.uri = URI.create(url);
            this.operatorToken = operatorToken;
        }

        @Override
        public void run() {
            while (running) {
                try {
                    String text = client.send(HttpRequest.newBuilder(uri)
                            .header("Authorization", "Bearer " + operatorToken)
                            .timeout(Duration.ofSeconds(5)).build(),
                            HttpResponse.BodyHandlers.ofString()).body();
                    for (String line : text.split("\n")) {
                        if (line.startsWith("onejob_http_server_queued_tasks ")) {
                            peakQueuedTasks = Math.max(peakQueuedTasks, value(line));
                        } else if (line.startsWith("onejob_http_submit_queue ")) {
                            peakCommitQueue = Math.max(peakCommitQueue, value(line));
                        } else if (line.startsWith("onejob_http_requests_seconds_max{")
                                && line.contains("route=\"POST /v1/jobs\"") && line.contains("status=\"201\"")) {
                            peakServerSeconds = Math.max(peakServerSeconds, value(line));
                        }
                    }
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (IOException | RuntimeException e) {
                    // a sample missed under overload; the next one counts
                }
            }
        }

        private static double value(String line) {
            return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }

        void stop() {
            running = false;
        }
    }
}
