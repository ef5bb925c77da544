package dev.onejob.bench;

import dev.onejob.bench.proc.ResourceMonitor;
import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.Results;
import dev.onejob.bench.report.Targets;
import java.util.List;

/**
 * CPU milliseconds per finished job, by component, for onejob's end-to-end phase and the peer's phase: each
 * component's CPU over its phase (from {@code /proc}) divided by the distinct jobs the phase sent, which all finished
 * (the invariants say so). onejob's count includes the Kafka broker, which runs in the bench driver's JVM (the
 * driver itself does little meanwhile) and which the peer does not need; the load generators and simulators are
 * left out on both sides.
 */
final class CpuPerJob {
    private static final List<String> ONEJOB = List.of("ingest-service", "attempt-worker", "result-reconciler",
            ResourceMonitor.POSTGRES, ResourceMonitor.DRIVER);
    private static final List<String> PEER = List.of("dbos-peer", ResourceMonitor.POSTGRES);

    private CpuPerJob() {
    }

    static void record(BenchContext context) {
        Results results = context.results();
        side(results, Phases.END_TO_END, "onejob", ONEJOB, Targets.CPU_ONEJOB, context.expectedJobs().get("e2e"));
        side(results, Phases.DBOS, "DBOS", PEER, Targets.CPU_PEER, context.expectedJobs().get("dbos"));
    }

    private static void side(Results results, String phase, String who, List<String> components, String total,
                             Long jobs) {
        ResourceMonitor.CpuUsage usage = results.cpu().stream().filter(u -> u.phase().equals(phase)).findFirst()
                .orElse(null);
        if (usage == null || jobs == null || jobs == 0) {
            results.notMeasured(Phases.CPU_PER_JOB, total, "ms/job", "the " + phase + " phase did not run to its end");
            return;
        }
        double sum = 0;
        for (String component : components) {
            double seconds = usage.cpuSeconds().getOrDefault(component, 0.0);
            sum += seconds;
            results.add(Phases.CPU_PER_JOB, who + ", " + component, seconds * 1000 / jobs, "ms/job",
                    String.format("%.1f CPU s over %d jobs in %s", seconds, jobs, phase));
        }
        results.add(Phases.CPU_PER_JOB, total, sum * 1000 / jobs, "ms/job", String.join(" + ", components));
    }
}
