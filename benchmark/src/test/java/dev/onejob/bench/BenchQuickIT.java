package dev.onejob.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps the benchmark from rotting: runs {@code ./onejob bench --quick} inside the project's test command and checks
 * that every phase produced its rows and that every invariant held. It asserts nothing about speed.
 */
class BenchQuickIT {

    @Test
    void quickRunProducesEveryRowAndEveryInvariantHolds() throws Exception {
        Path root = BenchCommand.root();
        Path out = root.resolve("benchmark/target/bench-quick-it");

        int exit = BenchCommand.run(root, true, out);

        JsonNode report = Json.MAPPER.readTree(Files.readString(out.resolve("results.json")));
        List<String> notMeasured = new ArrayList<>();
        report.path("figures").forEach(f -> {
            if (f.path("value").isNull()) {
                notMeasured.add(f.path("phase").asText() + " / " + f.path("metric").asText() + ": "
                        + f.path("note").asText());
            }
        });
        assertEquals(List.of(), notMeasured, "every figure is measured");
        for (String phase : List.of("pgbench", "kafka-producer-perf", "kafka-ingest", "http-ingest", "http-overload",
                "http-slow-clients", "end-to-end",
                "slow-provider", "slow-backlog", "dbos-peer", "cpu-per-job")) {
            assertTrue(hasFigure(report, phase), "phase " + phase + " produced figures");
        }
        report.path("targets").forEach(t -> assertTrue(t.path("ratio").isNumber(),
                "target " + t.path("id").asText() + " has a measured ratio"));
        assertTrue(report.path("invariants").size() >= 7, "the invariants were checked");
        report.path("invariants").forEach(i -> assertTrue(i.path("holds").asBoolean(),
                "invariant " + i.path("name").asText() + ": " + i.path("detail").asText()));
        assertTrue(Files.readString(out.resolve("BENCHMARKS.md")).contains("## Targets"));
        assertEquals(0, exit, "the quick run exits 0");
    }

    private static boolean hasFigure(JsonNode report, String phase) {
        for (JsonNode figure : report.path("figures")) {
            if (figure.path("phase").asText().equals(phase)) {
                return true;
            }
        }
        return false;
    }
}
