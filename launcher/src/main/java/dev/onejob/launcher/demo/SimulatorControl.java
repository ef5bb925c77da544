package dev.onejob.launcher.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.launcher.cli.CliFailure;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * One provider simulator, driven through its control plane ({@code /_sim/}, see provider-simulator/README.md), the
 * same way whether it runs in this process or in {@code ./onejob dev}. Consumes the simulator's base URL; produces
 * behaviour changes ({@code PUT /_sim/behaviour}) and counts from its request ledger ({@code GET /_sim/ledger}).
 */
final class SimulatorControl {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final String name;
    private final String baseUrl;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    SimulatorControl(String name, String baseUrl) {
        this.name = name;
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    }

    /** @throws CliFailure exit 3 when the simulator does not answer its health check */
    void checkReachable() {
        send("GET", "/_sim/health", null);
    }

    /** No per-key behaviours, default {@code answer}: what the scenarios start from. */
    void resetBehaviours() {
        send("DELETE", "/_sim/behaviour", null);
    }

    /**
     * The next request without a per-key behaviour holds its connection for {@code answerAfter}, then answers; the
     * ones after it are answered at once again ({@code one_shot}).
     */
    void hangOnceThenAnswer(Duration answerAfter) {
        ObjectNode spec = Json.object().put("kind", "hang").put("answer_after_ms", answerAfter.toMillis())
                .put("one_shot", true);
        send("PUT", "/_sim/behaviour", spec);
    }

    /** The next request without a per-key behaviour gets this HTTP error; the ones after it are answered. */
    void failOnceWith(int status) {
        send("PUT", "/_sim/behaviour", Json.object().put("kind", "status").put("status", status).put("one_shot", true));
    }

    /** Every request without a per-key behaviour is answered with {@code key} added at the top level. */
    void inventKey(String key) {
        send("PUT", "/_sim/behaviour", Json.object().put("kind", "invent_key").put("key", key));
    }

    /** How many protocol requests carried this {@code Idempotency-Key} (the worker sends the attempt id). */
    long requestsWithIdempotencyKey(String key) {
        JsonNode ledger = send("GET", "/_sim/ledger", null);
        long count = 0;
        for (JsonNode entry : ledger) {
            if (key.equals(entry.path("idempotency_key").asText(null))) {
                count++;
            }
        }
        return count;
    }

    private JsonNode send(String method, String path, JsonNode body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(TIMEOUT)
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(Json.write(body)))
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw CliFailure.unreachable("the simulator '" + name + "' at " + baseUrl + " does not answer (" + e
                    + "): give its address with --sim-" + name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CliFailure.unreachable("interrupted while calling the simulator '" + name + "'");
        }
        if (response.statusCode() >= 300) {
            throw new IllegalStateException("the simulator '" + name + "' answered " + method + " " + path + " with "
                    + response.statusCode() + ": " + response.body());
        }
        return response.body().isBlank() ? Json.object() : Json.parse(response.body());
    }
}
