package dev.onejob.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.Results;
import dev.onejob.core.config.Env;
import dev.onejob.infra.proc.ChildProcess;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Phase 11, the peer: DBOS Transact for Java ({@link dev.onejob.bench.peer.DbosPeerMain}, its own JVM, its system
 * tables in the run's database) doing the equivalent work with onejob's services stopped: a workflow per job with
 * {@code owner:key} as the workflow id, one step calling the same primary simulator over HTTP, the same share of
 * repeated submissions. The peer answers when the workflow is done, so its end-to-end latency is the answer's. Runs:
 * saturated (a burst in closed loop) and 50% of that in open loop. If it cannot start, every figure says why.
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
        } catch (RuntimeException e) {
            notMeasured("the peer failed: " + firstLine(e.getMessage()));
        } finally {
            context.monitor().untrack(peer.name());
            peer.close();
        }
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
