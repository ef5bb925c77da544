package dev.onejob.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.Results;
import dev.onejob.bench.report.Targets;
import dev.onejob.core.config.Env;
import dev.onejob.infra.proc.ChildProcess;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Phase 11, the peer: DBOS Transact for Java ({@link dev.onejob.bench.peer.DbosPeerMain}, its own JVM, its system
 * tables in the run's database) doing the equivalent work with onejob's services stopped: a workflow per job with
 * {@code owner:key} as the workflow id, one step calling the same primary simulator over HTTP, the same share of
 * repeated submissions. The peer answers when the workflow is done, so its end-to-end latency is the answer's. Runs:
 * saturated (a burst in closed loop) and 50% of that in open loop, then the AI-length workload (the slow-provider
 * phase's lognormal calls and offered rates). If it cannot start, every figure says why.
 */
record DbosPhase(BenchContext context) {
    private static final Pattern STARTED = Pattern.compile("event=started service=dbos-peer url=(\\S+) dbos_version=(\\S+)");
    private static final List<String> METRICS = List.of("jobs/s (saturated)", "p50 ms (saturated)",
            "p99 ms (saturated)", "jobs/s at 50% load", "p50 ms at 50% load", "p99 ms at 50% load");

    void run() throws Exception {
        BenchSettings settings = context.settings();
        ChildProcess peer = startPeer();
        if (peer == null) {
            return;
        }
        try {
            Matcher started = peer.awaitLine(STARTED, Duration.ofSeconds(120));
            context.results().versions().put("DBOS Transact (peer)", started.group(2));
            LoadPlan plan = new LoadPlan(started.group(1) + "/v1/jobs", context.files().submitterTokens(), "dbos",
                    settings.repeatShare(), "response")
                    .closedForRequests("warmup", 16, settings.e2eWarmupRequests(), false)
                    .closedForRequests("burst", settings.dbosConcurrency(), settings.dbosBurstRequests(), true)
                    .openAtShareOfMax("latency", 0.5, settings.dbosRateSeconds(), 0);
            Map<String, JsonNode> steps;
            try (var window = context.window(Phases.DBOS, List.of(peer))) {
                steps = plan.run(context, "loadgen-dbos");
            }
            context.expectedJobs().put("dbos", LoadPlan.acceptedJobs(steps));
            record(steps.get("burst"), "(saturated)", settings.dbosConcurrency() + " concurrent clients, each waiting "
                    + "for its workflow; " + settings.dbosBurstRequests() + " requests");
            record(steps.get("latency"), "at 50% load", "open loop");
            context.results().add(Phases.DBOS, "failed requests", LoadPlan.failures(steps), "requests",
                    "non-2xx answers and transport errors over all runs");
            aiLength(settings, started.group(1));
        } catch (RuntimeException e) {
            notMeasured("the peer failed: " + firstLine(e.getMessage()));
        } finally {
            context.monitor().untrack(peer.name());
            peer.close();
        }
    }

    /**
     * The AI-length workload on the peer: its provider answers after the same lognormal delay (median 1 s, p99 8 s)
     * as onejob's slow provider, at the same offered rates, each result awaited: jobs/s in each step's second half
     * and the p99 at the best one. The peer's calls are never refused (onejob's slow run also retries 5% refused with
     * 429), and its HTTP pool is large enough that waiting calls never queue for a thread.
     */
    private void aiLength(BenchSettings settings, String url) throws Exception {
        LoadPlan plan = new LoadPlan(url + "/v1/jobs", context.files().submitterTokens(), "dbos-ai", 0.0, "response");
        for (double rate : settings.slowRates()) {
            plan.openAtRate("rate-" + Math.round(rate), rate, settings.slowStepSeconds());
        }
        Map<String, JsonNode> steps;
        SlowProviderPhase.control(context.services().primaryUrl(), "PUT", SlowProviderPhase.LOGNORMAL);
        try {
            steps = plan.run(context, "loadgen-dbos-ai");
        } finally {
            SlowProviderPhase.control(context.services().primaryUrl(), "DELETE", null);
        }
        context.expectedJobs().put("dbos-ai", LoadPlan.acceptedJobs(steps));
        double best = 0;
        double bestP99 = 0;
        for (double rate : settings.slowRates()) {
            JsonNode e2e = steps.get("rate-" + Math.round(rate)).path("end_to_end");
            double jobsPerSecond = e2e.path("results_per_second_second_half").asDouble();
            context.results().add(Phases.DBOS, String.format(Locale.ROOT, "AI-length jobs/s at %.0f requests/s "
                    + "offered", rate), jobsPerSecond, "jobs/s", "results per second in the second half of "
                    + settings.slowStepSeconds() + " s; " + e2e.path("completed").asLong() + " of "
                    + e2e.path("jobs").asLong() + " workflows answered; p50 "
                    + Math.round(e2e.path("latency").path("p50_ms").asDouble()) + " ms, p99 "
                    + Math.round(e2e.path("latency").path("p99_ms").asDouble()) + " ms");
            if (e2e.path("missing").asLong() == 0 && jobsPerSecond > best) {
                best = jobsPerSecond;
                bestP99 = e2e.path("latency").path("p99_ms").asDouble();
            }
        }
        context.results().add(Phases.DBOS, Targets.AI_BEST, best, "jobs/s",
                "the highest of the offered rates' throughputs, lognormal calls");
        context.results().add(Phases.DBOS, Targets.AI_BEST_P99, bestP99, "ms",
                "request to result, at the offered rate of the best throughput");
    }

    private ChildProcess startPeer() {
        Map<String, String> env = new HashMap<>();
        env.put(Env.DATABASE_URL, context.database().jdbcUrl());
        env.put("DATABASE_USER", context.database().user());
        if (context.database().password() != null) {
            env.put("DATABASE_PASSWORD", context.database().password());
        }
        env.put("PROVIDER_URL", context.services().primaryUrl());
        env.put("PROVIDER_API_KEY", BenchFiles.API_KEY);
        env.put(Env.CONTRACTS_DIR, context.files().contractsDir().toString());
        env.put("TOKENS_PLAIN", context.files().plainTokensFile().toString());
        // A thread per workflow waits out its call: enough of them that AI-length calls never queue for one.
        env.put("HTTP_THREADS", "1024");
        try {
            ChildProcess peer = context.runner().javaWithExtraClasspath("dbos-peer", context.services().jvmArgs("dbos-peer"),
                    "dbos-classpath.txt",
                    "dev.onejob.bench.peer.DbosPeerMain", List.of(), env);
            context.monitor().track(peer, context.services().gcLog("dbos-peer"));
            return peer;
        } catch (RuntimeException e) {
            notMeasured("the peer did not start: " + e.getMessage());
            return null;
        }
    }

    private void record(JsonNode step, String label, String note) {
        Results results = context.results();
        JsonNode e2e = step.path("end_to_end");
        if (e2e.path("missing").asLong() > 0) {
            results.notMeasured(Phases.DBOS, "jobs/s " + label, "jobs/s", e2e.path("missing").asLong()
                    + " workflows had no successful answer (" + step.path("first_problem").asText() + ")");
            return;
        }
        results.add(Phases.DBOS, "jobs/s " + label, e2e.path("jobs_per_second").asDouble(), "jobs/s",
                e2e.path("completed").asLong() + " of " + e2e.path("jobs").asLong() + " jobs; " + note
                        + (step.path("target_rate").asDouble() > 0
                        ? String.format("; %.0f requests/s offered", step.path("target_rate").asDouble()) : ""));
        results.add(Phases.DBOS, "p50 ms " + label, e2e.path("latency").path("p50_ms").asDouble(), "ms",
                "request to the workflow's result");
        results.add(Phases.DBOS, "p99 ms " + label, e2e.path("latency").path("p99_ms").asDouble(), "ms", "");
    }

    private void notMeasured(String reason) {
        for (String metric : METRICS) {
            context.results().notMeasured(Phases.DBOS, metric, metric.startsWith("jobs") ? "jobs/s" : "ms", reason);
        }
    }

    private static String firstLine(String text) {
        return text == null ? "" : text.replace('\n', ' ');
    }
}
