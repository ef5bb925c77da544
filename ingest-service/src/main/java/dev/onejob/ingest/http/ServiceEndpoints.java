package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.http.CachedReadiness;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.json.Json;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The routes about the service rather than its jobs: readiness ({@code /health}, {@code /health/ready}), liveness
 * ({@code /health/live}), the operators' metrics scrape ({@code /metrics}) and the OpenAPI document.
 */
final class ServiceEndpoints {
    private final Supplier<String> readiness;
    private final PrometheusMeterRegistry registry;

    /** {@code readiness}: null when ready, otherwise what is not. */
    ServiceEndpoints(Supplier<String> readiness, PrometheusMeterRegistry registry) {
        // A probe or a scraper polling readiness costs PostgreSQL and Kafka one check a second, not one per call.
        this.readiness = new CachedReadiness(readiness, Duration.ofSeconds(1));
        this.registry = registry;
    }

    void ready(HttpCall exchange, Route.Call call) throws IOException {
        String notReady = readiness.get();
        ObjectNode body = Json.object();
        body.put("status", notReady == null ? "ready" : "not-ready");
        if (notReady != null) {
            body.put("detail", notReady);
        }
        Exchanges.sendJson(exchange, notReady == null ? 200 : 503, body);
    }

    /**
     * Liveness: this process serves HTTP. Touches neither PostgreSQL nor Kafka, so a database outage never gets a
     * healthy process restarted.
     */
    void live(HttpCall exchange, Route.Call call) throws IOException {
        Exchanges.send(exchange, 200, "application/json", "{\"status\":\"live\"}".getBytes(StandardCharsets.UTF_8));
    }

    /**
     * On the API's port, reached by every caller: the service's counters are for operators (a Prometheus scrape
     * sends an operator's token, {@code authorization: credentials: ...}).
     */
    void metrics(HttpCall exchange, Route.Call call) throws IOException {
        Exchanges.send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8",
                registry.scrape().getBytes(StandardCharsets.UTF_8));
    }

    void openApi(HttpCall exchange, Route.Call call) throws IOException {
        try (InputStream in = ServiceEndpoints.class.getClassLoader().getResourceAsStream("openapi.yaml")) {
            if (in == null) {
                throw new Problem(500, "internal", "Internal error", "the OpenAPI document is missing from the build");
            }
            Exchanges.send(exchange, 200, "application/yaml", in.readAllBytes());
        }
    }

    /** The operator console's files ({@link ConsoleAssets}): public, as the token is the page's, not the files'. */
    void console(HttpCall exchange, Route.Call call) throws IOException {
        ConsoleAssets.serve(exchange, call.path());
    }
}
