package dev.onejob.launcher.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.launcher.cli.ApiClient;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * What the scenarios play against: the HTTP API as the owner (alice: submit) and as the operator (ops: operate),
 * the two provider simulators' control planes, and, when Kafka is reachable, the broker to read race-audit from.
 * Also carries the story the timeout scenarios share ({@link TimeoutStory}). Owns no connections of its own.
 *
 * @param bootstrapServers the broker to read race-audit from; empty against a remote stack given without
 *                         {@code --bootstrap-servers}
 * @param runId            what makes this run's idempotency keys its own ({@link #key})
 */
record DemoContext(Narrator narrator, ApiClient owner, ApiClient operator, SimulatorControl primary,
                   SimulatorControl backup, Optional<String> bootstrapServers, Duration primarySoftTimeout,
                   String runId, TimeoutStory story) {
    static final String PRIMARY = "primary";
    static final String BACKUP = "backup";
    static final String CONTRACT = "sentiment";

    /** A new run: a run id from the clock, and a story no scenario has written yet. */
    DemoContext(Narrator narrator, ApiClient owner, ApiClient operator, SimulatorControl primary,
                SimulatorControl backup, String bootstrapServers, Duration primarySoftTimeout) {
        this(narrator, owner, operator, primary, backup, Optional.ofNullable(bootstrapServers), primarySoftTimeout,
                Long.toString(System.currentTimeMillis(), 36), new TimeoutStory());
    }

    /** An idempotency key no earlier demo run used: {@code demo-<run>-<label>}. */
    String key(String label) {
        return "demo-" + runId + "-" + label;
    }

    /** The sentiment request for {@code text}, target primary, fallback backup. */
    static ObjectNode request(String text) {
        ObjectNode body = Json.object().put("contract", CONTRACT).put("target", PRIMARY);
        body.putObject("variables").put("text", text);
        body.putArray("fallbacks").add(BACKUP);
        return body;
    }

    /** POST /v1/jobs as the owner with this Idempotency-Key. */
    ApiClient.Response submit(String key, JsonNode request) {
        return owner.post("/v1/jobs", Map.of("Idempotency-Key", key), request);
    }

    /** GET /v1/jobs/{id} as the owner; anything but 200 is a failure of the scenario. */
    JsonNode job(String jobId) {
        ApiClient.Response response = owner.get("/v1/jobs/" + jobId);
        if (response.status() != 200) {
            throw new IllegalStateException("GET /v1/jobs/" + jobId + " answered " + response.describe());
        }
        return response.body();
    }

    /** The job once {@code until} holds for it, or as it was when {@code timeout} ran out. */
    JsonNode awaitJob(String jobId, Duration timeout, Predicate<JsonNode> until) {
        return Poll.until(timeout, () -> job(jobId), until);
    }

    /** The fallback button: POST /v1/jobs/{id}/attempts as the owner. */
    ApiClient.Response fallbackButton(String jobId, String provider) {
        return owner.post("/v1/jobs/" + jobId + "/attempts", Map.of(), Json.object().put("provider", provider));
    }

    /** An operator's out-of-band resolution: POST /v1/attempts/{id}/resolve with the operate token. */
    ApiClient.Response resolve(String attemptId, String outcome, String reason) {
        return operator.post("/v1/attempts/" + attemptId + "/resolve", Map.of(),
                Json.object().put("outcome", outcome).put("reason", reason));
    }

    /** Certifies {@code provider} for the demo's contract now: POST /v1/certifications with the operate token. */
    ApiClient.Response certify(String provider) {
        return operator.post("/v1/certifications", Map.of(),
                Json.object().put("provider", provider).put("contract", CONTRACT));
    }

    static boolean hasStatus(JsonNode job, String status) {
        return status.equals(job.path("status").asText());
    }

    /** The first 8 characters of an id, enough to tell ids apart in a sentence. */
    static String shortId(String id) {
        return id == null || id.length() <= 8 ? String.valueOf(id) : id.substring(0, 8);
    }

    /** The first 12 hex digits of a SHA-256 and an ellipsis. */
    static String hashPrefix(String hash) {
        return hash == null || hash.length() <= 12 ? String.valueOf(hash) : hash.substring(0, 12) + "...";
    }

    /** The job's attempt with this number, or an empty object when it has none. */
    static JsonNode attempt(JsonNode job, int number) {
        for (JsonNode attempt : job.path("attempts")) {
            if (attempt.path("number").asInt() == number) {
                return attempt;
            }
        }
        return Json.object();
    }
}
