package dev.onejob.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.Results;
import java.util.List;
import java.util.Map;

/**
 * Phase 4, ingest over HTTP: {@code POST /v1/jobs} on the ingest service (its own process, relay on, no worker),
 * driven by the load generator in a JVM of its own. Closed loop at 8, 32 and 128 concurrent clients for throughput
 * (after an unrecorded warm-up), then open loop at 50% of the best of those: requests at fixed intended times,
 * latency from the intended time (coordinated omission accounted for). A share of requests repeat an earlier one.
 */
record HttpIngestPhase(BenchContext context) {
    void run() throws Exception {
        BenchSettings settings = context.settings();
        LoadPlan plan = context.ingestLoad("http", settings.repeatShare(), "none")
                .closedForSeconds("warmup", 32, settings.httpWarmupSeconds(), false);
        for (int clients : settings.httpConcurrency()) {
            plan.closedForSeconds("c" + clients, clients, settings.httpStepSeconds(), true);
        }
        plan.openAtShareOfMax("latency", 0.5, settings.httpLatencySeconds(), 0);
        Map<String, JsonNode> steps;
        try (var window = context.window(Phases.HTTP_INGEST, List.of(context.services().ingest()))) {
            steps = plan.run(context, "loadgen-http");
        }
        context.expectedJobs().put("http", LoadPlan.acceptedJobs(steps));
        Results results = context.results();
        double best = 0;
        for (int clients : settings.httpConcurrency()) {
            JsonNode step = steps.get("c" + clients);
            double rate = step.path("answers_per_second").asDouble();
            best = Math.max(best, rate);
            results.add(Phases.HTTP_INGEST, "requests/s, " + clients + " clients", rate, "requests/s",
                    step.path("sent").asLong() + " requests, statuses " + step.path("statuses"));
            results.add(Phases.HTTP_INGEST, "p50 ms, " + clients + " clients",
                    step.path("latency").path("p50_ms").asDouble(), "ms", "closed loop: service time");
            results.add(Phases.HTTP_INGEST, "p99 ms, " + clients + " clients",
                    step.path("latency").path("p99_ms").asDouble(), "ms", "");
        }
        results.add(Phases.HTTP_INGEST, "max requests/s", best, "requests/s", "best of the closed-loop runs");
        JsonNode latency = steps.get("latency");
        results.add(Phases.HTTP_INGEST, "latency run: target rate", latency.path("target_rate").asDouble(),
                "requests/s", "50% of max, open loop");
        results.add(Phases.HTTP_INGEST, "latency run: achieved", latency.path("answers_per_second").asDouble(),
                "requests/s", latency.path("sent").asLong() + " requests, statuses " + latency.path("statuses"));
        results.add(Phases.HTTP_INGEST, "p50 ms at 50% load", latency.path("latency").path("p50_ms").asDouble(), "ms",
                "from the intended send time");
        results.add(Phases.HTTP_INGEST, "p99 ms at 50% load", latency.path("latency").path("p99_ms").asDouble(), "ms",
                "");
        results.add(Phases.HTTP_INGEST, "p99.9 ms at 50% load", latency.path("latency").path("p999_ms").asDouble(),
                "ms", "");
        results.add(Phases.HTTP_INGEST, "failed requests", LoadPlan.failures(steps), "requests",
                "non-2xx answers and transport errors over all runs");
    }
}
