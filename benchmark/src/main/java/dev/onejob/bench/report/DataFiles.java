package dev.onejob.bench.report;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.bench.proc.JfrSummary;
import dev.onejob.bench.proc.ResourceMonitor;
import dev.onejob.core.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/** The run's results as {@code results.csv} (one row per figure, target, invariant, CPU and memory entry) and JSON. */
final class DataFiles {
    private final Results results;
    private final List<Targets.Check> targets;

    DataFiles(Results results, List<Targets.Check> targets) {
        this.results = results;
        this.targets = targets;
    }

    void write(Path csv, Path json, String mode) throws IOException {
        Files.createDirectories(csv.toAbsolutePath().getParent());
        Files.writeString(csv, csv());
        Files.writeString(json, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(json(mode)) + "\n");
    }

    private String csv() {
        StringBuilder out = new StringBuilder("section,phase,metric,value,unit,note\n");
        results.machine().forEach((k, v) -> row(out, "machine", "", k, null, "", v));
        results.versions().forEach((k, v) -> row(out, "version", "", k, null, "", v));
        results.settings().forEach((k, v) -> row(out, "setting", "", k, null, "", v));
        for (Targets.Check t : targets) {
            row(out, "target", t.id(), t.target(), t.ratio(), "ratio " + t.threshold(), t.status());
        }
        for (Results.Figure f : results.figures()) {
            row(out, "figure", f.phase(), f.metric(), f.value(), f.unit(), f.note());
        }
        for (Results.Invariant i : results.invariants()) {
            row(out, "invariant", "", i.name(), i.holds() ? 1.0 : 0.0, "holds", i.detail());
        }
        for (ResourceMonitor.CpuUsage u : results.cpu()) {
            u.cpuSeconds().forEach((who, s) -> row(out, "cpu", u.phase(), who, s, "cpu seconds",
                    "wall " + u.wallSeconds() + " s"));
        }
        for (ResourceMonitor.MemoryUsage m : results.memory()) {
            row(out, "memory", m.phase(), m.process() + " peak RSS", m.peakRssMib(), "MiB", "");
            row(out, "memory", m.phase(), m.process() + " peak heap", m.peakHeapMib(), "MiB", "");
        }
        return out.toString();
    }

    private static void row(StringBuilder out, String section, String phase, String metric, Double value, String unit,
                            String note) {
        out.append(cell(section)).append(',').append(cell(phase)).append(',').append(cell(metric)).append(',')
                .append(value == null ? "" : value.toString()).append(',').append(cell(unit)).append(',')
                .append(cell(note)).append('\n');
    }

    private static String cell(String text) {
        if (text == null) {
            return "";
        }
        return text.matches(".*[,\"\n].*") ? '"' + text.replace("\"", "\"\"").replace("\n", " ") + '"' : text;
    }

    private ObjectNode json(String mode) {
        ObjectNode root = Json.object();
        root.put("mode", mode);
        root.put("generated_at", Instant.now().toString());
        root.put("run_seconds", results.runSeconds());
        root.set("machine", Json.MAPPER.valueToTree(results.machine()));
        root.set("versions", Json.MAPPER.valueToTree(results.versions()));
        root.set("settings", Json.MAPPER.valueToTree(results.settings()));
        root.set("methods", Json.MAPPER.valueToTree(results.methods()));
        ArrayNode targetNodes = root.putArray("targets");
        for (Targets.Check t : targets) {
            targetNodes.addObject().put("id", t.id()).put("target", t.target()).put("formula", t.formula())
                    .put("ratio", t.ratio()).put("needed", t.threshold()).put("status", t.status())
                    .put("close_the_gap", t.closeTheGap());
        }
        ArrayNode figures = root.putArray("figures");
        for (Results.Figure f : results.figures()) {
            figures.addObject().put("phase", f.phase()).put("metric", f.metric()).put("value", f.value())
                    .put("unit", f.unit()).put("note", f.note());
        }
        ArrayNode invariants = root.putArray("invariants");
        results.invariants().forEach(i -> invariants.addObject().put("name", i.name()).put("holds", i.holds())
                .put("detail", i.detail()));
        root.set("cpu", Json.MAPPER.valueToTree(results.cpu()));
        root.set("memory", Json.MAPPER.valueToTree(results.memory()));
        ArrayNode profiles = root.putArray("profiles");
        for (JfrSummary.Summary p : results.profiles()) {
            profiles.add(Json.MAPPER.valueToTree(p));
        }
        return root;
    }
}
