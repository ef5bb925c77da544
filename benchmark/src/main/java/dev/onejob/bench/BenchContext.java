package dev.onejob.bench;

import dev.onejob.bench.proc.JfrRecorder;
import dev.onejob.bench.proc.ResourceMonitor;
import dev.onejob.bench.report.Results;
import dev.onejob.infra.RunFiles;
import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What every phase works with: the settings, the run's database, broker, files and processes, the results, and the
 * distinct jobs each channel sent by key prefix and the Idempotency-Keys of the certification runs' provider calls (for
 * the invariants).
 */
record BenchContext(BenchSettings settings, ProcessRunner runner, ResourceMonitor monitor, JfrRecorder jfr,
                    Results results, BenchDatabase database, BenchKafka kafka, RunFiles files, Services services,
                    Map<String, Long> expectedJobs, Set<String> certificationCalls) {

    /** The ingest service's {@code POST /v1/jobs}, in the submitters' names: a plan's requests with key prefix {@code prefix}. */
    LoadPlan ingestLoad(String prefix, double repeatShare, String awaiting) {
        return new LoadPlan(ingestUrl() + "/v1/jobs", files.submitterTokens(), prefix, repeatShare, awaiting);
    }

    /** The ingest service's base URL. */
    String ingestUrl() {
        return "http://127.0.0.1:" + services.ingestPort();
    }

    /** Measures a phase: CPU by consumer, the memory of the tracked processes, and flight recordings of {@code profiled}. */
    PhaseWindow window(String phase, List<ChildProcess> profiled) {
        return new PhaseWindow(phase, profiled);
    }

    final class PhaseWindow implements AutoCloseable {
        private final String phase;
        private final List<ChildProcess> profiled;
        private final ResourceMonitor.Window window;

        private PhaseWindow(String phase, List<ChildProcess> profiled) {
            this.phase = phase;
            this.profiled = profiled;
            jfr.start(phase, profiled);
            this.window = monitor.begin(phase);
        }

        @Override
        public void close() {
            results.cpu(monitor.cpu(window));
            results.recordings(phase, jfr.stop(phase, profiled));
            results.memory(monitor.memory(window));
        }
    }
}
