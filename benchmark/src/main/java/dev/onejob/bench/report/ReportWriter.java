package dev.onejob.bench.report;

import dev.onejob.bench.proc.JfrSummary;
import dev.onejob.bench.proc.ResourceMonitor;
import dev.onejob.stack.ServiceProcesses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a run's results as {@code BENCHMARKS.md} (targets with MET/MISSED, every figure by phase with its method,
 * the invariants, where the CPU went, memory, and for each missed target the flight-recording summary and what would
 * close the gap) plus {@code results.csv} and {@code results.json} ({@link DataFiles}).
 */
public final class ReportWriter {
    private final Results results;
    private final List<Targets.Check> targets;
    private final int cores;
    private final StringBuilder md = new StringBuilder();

    public ReportWriter(Results results, int cores) {
        this.results = results;
        this.targets = Targets.evaluate(results);
        this.cores = cores;
    }

    public List<Targets.Check> targets() {
        return targets;
    }

    public void write(Path markdown, Path csv, Path json, String mode) {
        header(mode);
        targetsTable();
        figures();
        invariants();
        cpu();
        memory();
        missed();
        settings();
        try {
            Files.createDirectories(markdown.toAbsolutePath().getParent());
            Files.writeString(markdown, md);
            new DataFiles(results, targets).write(csv, json, mode);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report to " + markdown, e);
        }
    }

    private void header(String mode) {
        md.append("# onejob benchmarks\n\n");
        md.append("Written by `./onejob bench` on ")
                .append(ZonedDateTime.now().format(DateTimeFormatter.RFC_1123_DATE_TIME)).append(" (").append(mode)
                .append(" mode, ").append(fmt(results.runSeconds())).append(" s). Every figure below was measured in ")
                .append("this one run, on this machine, side by side: on a shared 2-core machine the absolute numbers ")
                .append("are noise, the ratios between them are the point. Re-run with `./onejob bench` (about 40 ")
                .append("minutes on 2 cores; writes this file, `docs/benchmarks/results.csv` and `docs/benchmarks/results.json`) or ")
                .append("`./onejob bench --quick` (under two minutes, small loads, writes under `benchmark/target/`).")
                .append("\n\n");
        md.append("## Machine and versions\n\n| | |\n|---|---|\n");
        results.machine().forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        results.versions().forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        md.append('\n');
    }

    private void targetsTable() {
        md.append("## Targets\n\n| target | measured as | ratio | needed | status |\n|---|---|---|---|---|\n");
        for (Targets.Check check : targets) {
            md.append("| ").append(check.target()).append(" | ").append(check.formula()).append(" | ")
                    .append(check.ratio() == null ? "not measured" : fmt(check.ratio()) + "x").append(" | ")
                    .append(check.threshold()).append(" | **").append(check.status()).append("** |\n");
        }
        md.append('\n');
    }

    private void figures() {
        md.append("## Figures\n\n");
        for (Map.Entry<String, String> phase : Phases.TITLES.entrySet()) {
            List<Results.Figure> figures = results.figures().stream()
                    .filter(f -> f.phase().equals(phase.getKey())).toList();
            if (figures.isEmpty() && !results.methods().containsKey(phase.getKey())) {
                continue;
            }
            md.append("### ").append(phase.getValue()).append("\n\n");
            String method = results.methods().get(phase.getKey());
            if (method != null) {
                md.append(method).append("\n\n");
            }
            md.append("| figure | value | unit | note |\n|---|---:|---|---|\n");
            for (Results.Figure figure : figures) {
                md.append("| ").append(figure.metric()).append(" | ")
                        .append(figure.measured() ? fmt(figure.value()) : "—").append(" | ").append(figure.unit())
                        .append(" | ").append(figure.note() == null ? "" : figure.note().replace("|", "\\|"))
                        .append(" |\n");
            }
            md.append('\n');
        }
    }

    private void invariants() {
        md.append("## Invariants (checked by the benchmark from the database, the topics and the simulators' ledgers)")
                .append("\n\n| invariant | holds | detail |\n|---|---|---|\n");
        for (Results.Invariant invariant : results.invariants()) {
            md.append("| ").append(invariant.name()).append(" | ").append(invariant.holds() ? "yes" : "**NO**")
                    .append(" | ").append(invariant.detail()).append(" |\n");
        }
        md.append('\n');
    }

    private void cpu() {
        md.append("## Where the CPU went, by phase\n\nCPU seconds per consumer during each measured phase (from ")
                .append("`/proc/<pid>/stat`), and the share of the machine's ").append(cores)
                .append(" cores over the phase's wall time. PostgreSQL counts every server process.\n\n")
                .append("| phase | wall s | consumer | CPU s | share of machine |\n|---|---:|---|---:|---:|\n");
        for (ResourceMonitor.CpuUsage usage : results.cpu()) {
            usage.cpuSeconds().forEach((who, seconds) -> md.append("| ").append(usage.phase()).append(" | ")
                    .append(fmt(usage.wallSeconds())).append(" | ").append(who).append(" | ").append(fmt(seconds))
                    .append(" | ").append(pct(seconds / (usage.wallSeconds() * cores))).append(" |\n"));
        }
        md.append('\n');
    }

    private void memory() {
        md.append("## Memory\n\nPeak RSS is `VmHWM` (the peak since the process started), sampled at the end of the ")
                .append("phase; peak heap is the largest heap-in-use before a GC pause in the phase (`-Xlog:gc`) or at ")
                .append("its end (`jcmd GC.heap_info`). The services run with the JVM settings they are deployed with "
                        + "(`" + String.join(" ", ServiceProcesses.SERVICE_JVM) + "`, docs/operations.md); the "
                        + "simulators and the DBOS peer with the default heap.\n\n")
                .append("| phase | process | peak RSS MiB | RSS at end MiB | peak heap MiB |\n|---|---|---:|---:|---:|\n");
        for (ResourceMonitor.MemoryUsage usage : results.memory()) {
            md.append("| ").append(usage.phase()).append(" | ").append(usage.process()).append(" | ")
                    .append(fmt(usage.peakRssMib())).append(" | ").append(fmt(usage.rssAtEndMib())).append(" | ")
                    .append(fmt(usage.peakHeapMib())).append(" |\n");
        }
        md.append('\n');
    }

    private void missed() {
        List<Targets.Check> missed = targets.stream().filter(t -> Boolean.FALSE.equals(t.met())).toList();
        md.append("## Where the time goes for missed targets\n\n");
        if (missed.isEmpty()) {
            md.append("No target was missed.\n\n");
            return;
        }
        for (Targets.Check check : missed) {
            md.append("### ").append(check.target()).append(" — ").append(fmt(check.ratio())).append("x\n\n");
            for (String phase : check.profilePhases()) {
                results.cpu().stream().filter(u -> u.phase().equals(phase)).forEach(u -> md.append("CPU in ")
                        .append(phase).append(" (").append(fmt(u.wallSeconds())).append(" s wall, ").append(cores)
                        .append(" cores): ").append(cpuLine(u)).append(".\n\n"));
                for (JfrSummary.Summary profile : results.profiles()) {
                    if (profile.phase().equals(phase)) {
                        profile(profile);
                    }
                }
            }
            md.append("**What would close the gap:** ").append(check.closeTheGap()).append("\n\n");
        }
    }

    private void profile(JfrSummary.Summary profile) {
        md.append("Flight recording of **").append(profile.process()).append("** during ").append(profile.phase())
                .append(": ").append(profile.cpuSamples()).append(" CPU samples, ").append(profile.nativeSamples())
                .append(" samples of threads in native code.\n\n| top frames (self) | share | first onejob frame | share |\n")
                .append("|---|---:|---|---:|\n");
        for (int i = 0; i < Math.max(profile.topSelf().size(), profile.topOnejob().size()); i++) {
            JfrSummary.Frame self = i < profile.topSelf().size() ? profile.topSelf().get(i) : null;
            JfrSummary.Frame own = i < profile.topOnejob().size() ? profile.topOnejob().get(i) : null;
            md.append("| ").append(self == null ? "" : "`" + self.frame() + "`").append(" | ")
                    .append(self == null ? "" : pct(self.share())).append(" | ")
                    .append(own == null ? "" : "`" + own.frame() + "`").append(" | ")
                    .append(own == null ? "" : pct(own.share())).append(" |\n");
        }
        if (!profile.topNative().isEmpty()) {
            md.append("\nThreads in native code (waiting on sockets: PostgreSQL, Kafka, HTTP): ");
            profile.topNative().stream().limit(4).forEach(f -> md.append('`').append(f.frame()).append("` ")
                    .append(pct(f.share())).append("; "));
            md.append('\n');
        }
        md.append('\n');
    }

    private String cpuLine(ResourceMonitor.CpuUsage usage) {
        StringBuilder line = new StringBuilder();
        usage.cpuSeconds().entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> line.append(line.length() == 0 ? "" : ", ").append(e.getKey()).append(' ')
                        .append(fmt(e.getValue())).append(" s (")
                        .append(pct(e.getValue() / (usage.wallSeconds() * cores))).append(')'));
        return line.toString();
    }

    private void settings() {
        md.append("## Settings\n\n");
        results.settings().forEach((k, v) -> md.append("- **").append(k).append("**: ").append(v).append('\n'));
        List<Results.Figure> missing = results.figures().stream().filter(f -> !f.measured()).toList();
        md.append("\n## Not measured\n\n");
        if (missing.isEmpty()) {
            md.append("Everything was measured.\n");
        }
        missing.forEach(f -> md.append("- ").append(f.phase()).append(" / ").append(f.metric()).append(": ")
                .append(f.note()).append('\n'));
    }

    static String fmt(double value) {
        if (Math.abs(value) >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (Math.abs(value) >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    static String pct(double share) {
        return String.format(Locale.ROOT, "%.0f%%", share * 100);
    }
}
