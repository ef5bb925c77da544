package dev.onejob.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.infra.proc.ChildProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A plan for the load generator ({@link dev.onejob.bench.loadgen.LoadGenMain}), run in a JVM of its own: built
 * step by step here, written to a file, and its results read back.
 */
final class LoadPlan {
    private final ObjectNode plan = Json.object();
    private final ArrayNode steps = plan.putArray("steps");

    LoadPlan(String url, Map<String, String> tokens, String keyPrefix, double repeatShare, String await) {
        plan.put("url", url);
        plan.set("tokens", Json.MAPPER.valueToTree(tokens));
        plan.put("keyPrefix", keyPrefix);
        plan.put("repeatShare", repeatShare);
        plan.put("await", await);
    }

    LoadPlan awaitingKafka(String bootstrapServers, String hangMarker) {
        plan.put("bootstrap", bootstrapServers);
        plan.put("hangMarker", hangMarker);
        return this;
    }

    LoadPlan closedForSeconds(String name, int concurrency, double seconds, boolean record) {
        steps.addObject().put("name", name).put("kind", "closed").put("concurrency", concurrency)
                .put("seconds", seconds).put("record", record);
        return this;
    }

    LoadPlan closedForRequests(String name, int concurrency, long requests, boolean record) {
        steps.addObject().put("name", name).put("kind", "closed").put("concurrency", concurrency)
                .put("requests", requests).put("record", record).put("awaitSeconds", 300);
        return this;
    }

    /** Closed loop in which each client waits for its job's result before its next request (like the peer's). */
    LoadPlan closedAwaitingEach(String name, int concurrency, long requests) {
        steps.addObject().put("name", name).put("kind", "closed").put("concurrency", concurrency)
                .put("requests", requests).put("record", true).put("awaitSeconds", 300).put("awaitEach", true);
        return this;
    }

    /** Open loop at a fixed rate (requests/s) for {@code seconds}. */
    LoadPlan openAtRate(String name, double rate, double seconds) {
        steps.addObject().put("name", name).put("kind", "open").put("rate", rate).put("seconds", seconds)
                .put("hangEvery", 0).put("awaitSeconds", 300);
        return this;
    }

    /** The providers the plan's jobs run on: {@code target}, then {@code fallbacks}. */
    LoadPlan onProviders(String target, List<String> fallbacks) {
        plan.put("target", target);
        ArrayNode chain = plan.putArray("fallbacks");
        fallbacks.forEach(chain::add);
        return this;
    }

    LoadPlan openAtShareOfMax(String name, double share, double seconds, int hangEvery) {
        steps.addObject().put("name", name).put("kind", "open").put("rateOfMax", share).put("seconds", seconds)
                .put("hangEvery", hangEvery).put("awaitSeconds", 300);
        return this;
    }

    /** Runs the plan; the results by step name. Fails with the load generator's log when it did not finish. */
    Map<String, JsonNode> run(BenchContext context, String name) throws IOException {
        Path planFile = context.runner().logs().resolve(name + "-plan.json");
        Path resultFile = context.runner().logs().resolve(name + "-result.json");
        Files.writeString(planFile, Json.write(plan));
        Files.deleteIfExists(resultFile);
        ChildProcess loadgen = context.runner().java(name, List.of("-Xms256m"),
                "dev.onejob.bench.loadgen.LoadGenMain", List.of(planFile.toString(), resultFile.toString()), Map.of());
        int exit = loadgen.waitFor(Duration.ofMinutes(20));
        if (exit != 0 || !Files.exists(resultFile)) {
            throw new IllegalStateException("the load generator " + name + " exited " + exit + ":\n" + loadgen.tail(20));
        }
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        for (JsonNode step : Json.MAPPER.readTree(Files.readString(resultFile)).path("steps")) {
            byName.put(step.path("name").asText(), step);
        }
        return byName;
    }

    /**
     * Distinct jobs (keys) accepted (a 2xx answer) in all steps, recorded or not: the jobs the ledger must hold. A
     * key only ever refused (503 load shed, 429) must have none, so a refusal that wrote anyway shows as one too many.
     */
    static long acceptedJobs(Map<String, JsonNode> steps) {
        return steps.values().stream().mapToLong(s -> s.path("accepted_distinct_jobs").asLong()).sum();
    }

    /** Answers that were not 2xx, and transport errors, over all steps. */
    static long failures(Map<String, JsonNode> steps) {
        long failures = 0;
        for (JsonNode step : steps.values()) {
            failures += step.path("errors").asLong();
            var statuses = step.path("statuses").fields();
            while (statuses.hasNext()) {
                var status = statuses.next();
                if (!status.getKey().startsWith("2")) {
                    failures += status.getValue().asLong();
                }
            }
        }
        return failures;
    }
}
