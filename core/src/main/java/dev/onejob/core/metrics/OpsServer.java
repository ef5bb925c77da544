package dev.onejob.core.metrics;

import dev.onejob.core.http.CachedReadiness;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.http.ProblemJson;
import dev.onejob.core.http.WebServer;
import dev.onejob.core.json.Json;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The operations endpoint of a service without an API of its own (attempt-worker, result-reconciler), on
 * {@link WebServer}: {@code GET /metrics} in Prometheus text format; {@code GET /health/live}, 200 while the process
 * serves HTTP, touching nothing else; {@code GET /health/ready} (and {@code /health}), 200 only when the supplier
 * reports nothing wrong, else 503 with what is wrong, checked at most once a second.
 */
public final class OpsServer implements AutoCloseable {
    private final WebServer server;

    private OpsServer(WebServer server) {
        this.server = server;
    }

    /** {@code notReady} returns null when ready, otherwise what is not. */
    public static OpsServer start(String host, int port, PrometheusMeterRegistry registry, Supplier<String> notReady)
            throws IOException {
        CachedReadiness readiness = new CachedReadiness(notReady, Duration.ofSeconds(1));
        return new OpsServer(WebServer.start(WebServer.Settings.ops("ops-http", host, port),
                call -> route(call, registry, readiness)));
    }

    public int port() {
        return server.port();
    }

    private static void route(HttpCall call, PrometheusMeterRegistry registry, Supplier<String> readiness)
            throws IOException {
        String path = call.rawPath();
        boolean known = path.equals("/metrics") || path.equals("/health") || path.equals("/health/live")
                || path.equals("/health/ready");
        if (!known) {
            call.send(404, ProblemJson.CONTENT_TYPE, ProblemJson.forStatus(404, "no such resource: this is an ops "
                    + "endpoint (/metrics, /health/live, /health/ready)"));
            return;
        }
        if (!"GET".equals(call.method())) {
            call.setHeader("Allow", "GET");
            call.send(405, ProblemJson.CONTENT_TYPE, ProblemJson.forStatus(405, "this resource allows GET"));
            return;
        }
        switch (path) {
            case "/metrics" -> call.send(200, "text/plain; version=0.0.4; charset=utf-8",
                    registry.scrape().getBytes(StandardCharsets.UTF_8));
            case "/health/live" -> call.send(200, "application/json", "{\"status\":\"live\"}"
                    .getBytes(StandardCharsets.UTF_8));
            default -> {
                String problem = readiness.get();
                var body = Json.object();
                body.put("status", problem == null ? "ready" : "not-ready");
                if (problem != null) {
                    body.put("detail", problem);
                }
                call.send(problem == null ? 200 : 503, "application/json",
                        Json.write(body).getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
