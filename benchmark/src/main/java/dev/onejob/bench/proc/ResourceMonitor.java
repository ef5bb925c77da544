package dev.onejob.bench.proc;

import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a phase's CPU went and how much memory each service held. {@link #begin} notes the CPU time of every
 * tracked process, of the PostgreSQL server, of this JVM (which also runs the in-process Kafka broker) and of this
 * JVM's exited children (load generators, pgbench, ProducerPerformance); {@link #end} returns the differences, the
 * peak resident set of each tracked process ({@code VmHWM}: the peak since it started) and its peak heap in the phase
 * (the largest "before" figure of the phase's GC pauses in its {@code -Xlog:gc} file, or the heap in use at the end
 * as {@code jcmd GC.heap_info} tells, whichever is larger).
 */
public final class ResourceMonitor {
    /** CPU seconds by consumer during one phase, and the phase's wall time. */
    public record CpuUsage(String phase, double wallSeconds, Map<String, Double> cpuSeconds) {
    }

    /** One process's memory during one phase, in MiB. */
    public record MemoryUsage(String phase, String process, double peakRssMib, double rssAtEndMib,
                              double peakHeapMib) {
    }

    /** What {@link #begin} noted. */
    public record Window(String phase, long startNanos, Map<String, Long> ticks, Map<String, Integer> gcLines) {
    }

    private static final Pattern GC_PAUSE = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");
    private static final Pattern HEAP_USED = Pattern.compile("total \\d+K, used (\\d+)K");

    public static final String POSTGRES = "postgresql";
    public static final String DRIVER = "bench driver + Kafka broker";
    public static final String TOOLS = "load generators / tools";
    public static final String OTHERS = "other work on the machine (not this run)";
    private static final String MACHINE = "machine busy";

    private final Map<String, ChildProcess> tracked = new LinkedHashMap<>();
    private final Map<String, Path> gcLogs = new LinkedHashMap<>();
    private final ProcessRunner runner;

    public ResourceMonitor(ProcessRunner runner) {
        this.runner = runner;
    }

    public void track(ChildProcess process, Path gcLog) {
        tracked.put(process.name(), process);
        if (gcLog != null) {
            gcLogs.put(process.name(), gcLog);
        }
    }

    public void untrack(String name) {
        tracked.remove(name);
        gcLogs.remove(name);
    }

    public Window begin(String phase) {
        Map<String, Long> ticks = new LinkedHashMap<>();
        long self = ProcessHandle.current().pid();
        ticks.put(DRIVER, ProcStats.cpuTicks(self));
        ticks.put(TOOLS, ProcStats.childrenTicks(self));
        ticks.put(POSTGRES, ProcStats.postgresTicks());
        ticks.put(MACHINE, ProcStats.machineBusyTicks());
        tracked.forEach((name, process) -> ticks.put(name, ProcStats.cpuTicks(process.pid())));
        Map<String, Integer> gcLines = new LinkedHashMap<>();
        gcLogs.forEach((name, log) -> gcLines.put(name, readLines(log).size()));
        return new Window(phase, System.nanoTime(), ticks, gcLines);
    }

    public CpuUsage cpu(Window window) {
        double wall = (System.nanoTime() - window.startNanos()) / 1e9;
        long self = ProcessHandle.current().pid();
        Map<String, Double> seconds = new LinkedHashMap<>();
        double machine = (ProcStats.machineBusyTicks() - window.ticks().get(MACHINE)) / ProcStats.TICKS_PER_SECOND;
        for (Map.Entry<String, Long> start : window.ticks().entrySet()) {
            String name = start.getKey();
            if (name.equals(MACHINE)) {
                continue;
            }
            long now = switch (name) {
                case DRIVER -> ProcStats.cpuTicks(self);
                case TOOLS -> ProcStats.childrenTicks(self);
                case POSTGRES -> ProcStats.postgresTicks();
                default -> tracked.containsKey(name) ? ProcStats.cpuTicks(tracked.get(name).pid()) : -1;
            };
            if (now >= 0 && start.getValue() >= 0) {
                seconds.put(name, (now - start.getValue()) / ProcStats.TICKS_PER_SECOND);
            }
        }
        double ours = seconds.values().stream().mapToDouble(Double::doubleValue).sum();
        seconds.put(OTHERS, Math.max(0, machine - ours));
        return new CpuUsage(window.phase(), wall, seconds);
    }

    /** Memory of every tracked process that has a GC log (the services and the peer), as of now. */
    public List<MemoryUsage> memory(Window window) {
        List<MemoryUsage> usages = new ArrayList<>();
        for (Map.Entry<String, Path> entry : gcLogs.entrySet()) {
            ChildProcess process = tracked.get(entry.getKey());
            long[] kib = ProcStats.memoryKib(process.pid());
            if (kib == null) {
                continue;
            }
            List<String> lines = readLines(entry.getValue());
            int from = Math.min(lines.size(), window.gcLines().getOrDefault(entry.getKey(), 0));
            double peakHeap = heapInUseMib(process);
            for (String line : lines.subList(from, lines.size())) {
                Matcher pause = GC_PAUSE.matcher(line);
                if (pause.find()) {
                    peakHeap = Math.max(peakHeap, Double.parseDouble(pause.group(1)));
                }
            }
            usages.add(new MemoryUsage(window.phase(), process.name(), kib[1] / 1024.0, kib[0] / 1024.0, peakHeap));
        }
        return usages;
    }

    private double heapInUseMib(ChildProcess process) {
        ProcessRunner.Completed heap = runner.run("jcmd-heap-" + process.name(),
                List.of(ProcessRunner.javaTool("jcmd"), Long.toString(process.pid()), "GC.heap_info"), Map.of(),
                Duration.ofSeconds(30));
        Matcher used = HEAP_USED.matcher(heap.output());
        return used.find() ? Long.parseLong(used.group(1)) / 1024.0 : 0;
    }

    private static List<String> readLines(Path path) {
        try {
            return Files.exists(path) ? Files.readAllLines(path) : List.of();
        } catch (IOException e) {
            return List.of();
        }
    }
}
