package dev.onejob.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.bench.proc.ResourceMonitor;
import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.Results;
import java.util.List;
import java.util.Map;

/**
 * Phase 10, the scaling curve: end-to-end jobs/s on the {@code slow} provider (lognormal, median 1 s, p99 8 s) with
 * 1, 2 and 4 attempt workers and 1 and 2 result reconcilers, each its own process in its group. Each configuration
 * is offered {@code scalingRate} requests/s in open loop, above what the pipeline finishes, and measured by the
 * results per second in the second half of the run, once the pipeline is full: its capacity. (A closed loop of
 * clients each waiting for its result measured the clients instead: at the provider's seconds-long answers, 256 of
 * them cannot offer more than about 80 jobs/s.) A short unrecorded warm-up after each change absorbs the consumer
 * groups' rebalance. Beside each rate: the machine's CPU (of its 2 cores) and PostgreSQL's, so where the curve
 * flattens says what binds.
 */
record ScalingPhase(BenchContext context) {
    /** (workers, reconcilers), in an order that starts or stops one process between neighbours. */
    static final List<int[]> CONFIGURATIONS = List.of(new int[] {1, 1}, new int[] {2, 1}, new int[] {4, 1},
            new int[] {4, 2}, new int[] {2, 2}, new int[] {1, 2});

    void run() throws Exception {
        BenchSettings settings = context.settings();
        Results results = context.results();
        String simulator = context.services().backupUrl();
        SlowProviderPhase.control(simulator, "PUT", SlowProviderPhase.LOGNORMAL);
        try (OperatorBot operator = OperatorBot.pastHardTimeout(context.database(), context.services().ingestPort(),
                context.files().operatorToken(), BenchFiles.SLOW, BenchFiles.SLOW_HARD_TIMEOUT)) {
            // The quick run only keeps the phase from rotting: one change up and one back down.
            for (int[] configuration : settings.quick() ? List.of(new int[] {1, 1}, new int[] {2, 2})
                    : CONFIGURATIONS) {
                measure(settings, results, configuration[0], configuration[1]);
            }
        } finally {
            context.services().scaleTo(1, 1);
            SlowProviderPhase.control(simulator, "DELETE", null);
        }
    }

    private void measure(BenchSettings settings, Results results, int workers, int reconcilers) throws Exception {
        context.services().scaleTo(workers, reconcilers);
        String label = workers + (workers == 1 ? " worker, " : " workers, ") + reconcilers
                + (reconcilers == 1 ? " reconciler" : " reconcilers");
        String prefix = "scale-w" + workers + "-r" + reconcilers;
        LoadPlan plan = context.ingestLoad(prefix, 0.0, "kafka")
                .awaitingKafka(context.kafka().bootstrapServers(), Services.HANG_MARKER)
                .onProviders(BenchFiles.SLOW, List.of())
                .closedForRequests("warmup", 32, settings.scalingWarmupRequests(), false)
                .openAtRate("offered", settings.scalingRate(), settings.scalingSeconds());
        ResourceMonitor monitor = context.monitor();
        ResourceMonitor.Window window = monitor.begin(Phases.SCALING + "/" + prefix);
        Map<String, JsonNode> steps = plan.run(context, "loadgen-" + prefix);
        ResourceMonitor.CpuUsage cpu = monitor.cpu(window);
        context.expectedJobs().put(prefix, LoadPlan.acceptedJobs(steps));
        JsonNode e2e = steps.get("offered").path("end_to_end");
        if (e2e.path("missing").asLong() > 0) {
            results.notMeasured(Phases.SCALING, "jobs/s, " + label, "jobs/s", e2e.path("missing").asLong()
                    + " jobs had no result within the time limit");
            return;
        }
        double jobsPerSecond = e2e.path("results_per_second_second_half").asDouble();
        double machine = cpu.cpuSeconds().values().stream().mapToDouble(Double::doubleValue).sum();
        double postgres = cpu.cpuSeconds().getOrDefault(ResourceMonitor.POSTGRES, 0.0);
        double cores = Runtime.getRuntime().availableProcessors();
        results.add(Phases.SCALING, "jobs/s, " + label, jobsPerSecond, "jobs/s", String.format("results per second"
                + " in the second half of %.0f s at %.0f requests/s offered; ", settings.scalingSeconds(),
                settings.scalingRate()) + e2e.path("completed").asLong() + " jobs, all finished; p50 "
                + Math.round(e2e.path("latency").path("p50_ms").asDouble()) + " ms, p99 "
                + Math.round(e2e.path("latency").path("p99_ms").asDouble()) + " ms; machine CPU "
                + Math.round(100 * machine / (cpu.wallSeconds() * cores)) + "% of " + (int) cores + " cores, "
                + "PostgreSQL " + Math.round(100 * postgres / (cpu.wallSeconds() * cores)) + "% (the whole run, "
                + "warm-up included)");
        long jobs = settings.scalingWarmupRequests() + e2e.path("completed").asLong();
        results.add(Phases.SCALING, "PostgreSQL CPU ms per job, " + label, 1000 * postgres / jobs, "ms",
                "PostgreSQL's CPU over the configuration's " + jobs + " jobs (warm-up included)");
    }
}
