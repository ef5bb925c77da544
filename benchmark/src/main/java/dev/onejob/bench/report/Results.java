package dev.onejob.bench.report;

import dev.onejob.bench.proc.JfrSummary;
import dev.onejob.bench.proc.ResourceMonitor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one run measured and checked, in the order it happened: figures by phase (a figure without a value is
 * "not measured", with the reason as its note), invariant checks, CPU and memory by phase, flight recordings, and
 * the facts about the machine, the versions and the settings. The report writer turns it into Markdown, CSV and JSON.
 */
public final class Results {
    /** One measured figure; {@code value == null} means not measured, and {@code note} says why. */
    public record Figure(String phase, String metric, Double value, String unit, String note) {
        public boolean measured() {
            return value != null;
        }
    }

    /** One invariant, checked from the database, the topics and the simulators' ledgers. */
    public record Invariant(String name, boolean holds, String detail) {
    }

    private final List<Figure> figures = new ArrayList<>();
    private final List<Invariant> invariants = new ArrayList<>();
    private final List<ResourceMonitor.CpuUsage> cpu = new ArrayList<>();
    private final List<ResourceMonitor.MemoryUsage> memory = new ArrayList<>();
    private final Map<String, Map<String, Path>> recordings = new LinkedHashMap<>();
    private final List<JfrSummary.Summary> profiles = new ArrayList<>();
    private final Map<String, String> machine = new LinkedHashMap<>();
    private final Map<String, String> versions = new LinkedHashMap<>();
    private final Map<String, String> settings = new LinkedHashMap<>();
    private final Map<String, String> methods = new LinkedHashMap<>();
    private double runSeconds;

    public void add(String phase, String metric, double value, String unit, String note) {
        figures.add(new Figure(phase, metric, value, unit, note));
    }

    public void notMeasured(String phase, String metric, String unit, String reason) {
        figures.add(new Figure(phase, metric, null, unit, "not measured: " + reason));
    }

    public void invariant(String name, boolean holds, String detail) {
        invariants.add(new Invariant(name, holds, detail));
    }

    public void cpu(ResourceMonitor.CpuUsage usage) {
        cpu.add(usage);
    }

    public void memory(List<ResourceMonitor.MemoryUsage> usages) {
        memory.addAll(usages);
    }

    public void recordings(String phase, Map<String, Path> files) {
        recordings.computeIfAbsent(phase, p -> new LinkedHashMap<>()).putAll(files);
    }

    public Map<String, Path> recordings(String phase) {
        return recordings.getOrDefault(phase, Map.of());
    }

    public void profile(JfrSummary.Summary summary) {
        profiles.add(summary);
    }

    /** The value of a figure, or null when it is missing or not measured. */
    public Double value(String phase, String metric) {
        return figures.stream().filter(f -> f.phase().equals(phase) && f.metric().equals(metric))
                .map(Figure::value).filter(v -> v != null).findFirst().orElse(null);
    }

    /** A figure a later phase builds on: measured and above zero, else an IllegalStateException saying {@code why}. */
    public double positive(String phase, String metric, String why) {
        Double value = value(phase, metric);
        if (value == null || value <= 0) {
            throw new IllegalStateException(why);
        }
        return value;
    }

    public boolean invariantsHold() {
        return !invariants.isEmpty() && invariants.stream().allMatch(Invariant::holds);
    }

    public List<Figure> figures() {
        return figures;
    }

    public List<Invariant> invariants() {
        return invariants;
    }

    public List<ResourceMonitor.CpuUsage> cpu() {
        return cpu;
    }

    public List<ResourceMonitor.MemoryUsage> memory() {
        return memory;
    }

    public List<JfrSummary.Summary> profiles() {
        return profiles;
    }

    public Map<String, String> machine() {
        return machine;
    }

    public Map<String, String> versions() {
        return versions;
    }

    public Map<String, String> settings() {
        return settings;
    }

    /** How each phase measured, in a sentence or two, by phase. */
    public Map<String, String> methods() {
        return methods;
    }

    public double runSeconds() {
        return runSeconds;
    }

    public void runSeconds(double seconds) {
        this.runSeconds = seconds;
    }
}
