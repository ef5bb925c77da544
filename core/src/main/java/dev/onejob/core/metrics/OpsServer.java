package dev.onejob.core.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The operations endpoint of a service without an API of its own (attempt-worker, result-reconciler):
 * {@code GET /metrics} in Prometheus text format and {@code GET /health}, ready (200) only when the supplier reports
 * nothing wrong, else 503 with what is wrong.
 */
public final class OpsServer implements AutoCloseable {
    static {
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private final HttpServer server;

    private OpsServer(HttpServer server) {
        this.server = server;
    }

    /** {@code notReady} returns null when ready, otherwise what is not. */
    public static OpsServer start(String host, int port, PrometheusMeterRegistry registry, Supplier<String> notReady)
            throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
        server.createContext("/metrics", exchange -> answer(exchange, 200, "text/plain; version=0.0.4; charset=utf-8",
                registry.scrape()));
        server.createContext("/health", exchange -> {
            String problem = notReady.get();
            answer(exchange, problem == null ? 200 : 503, "application/json", problem == null
                    ? "{\"status\":\"ready\"}"
                    : "{\"status\":\"not-ready\",\"detail\":\"" + problem.replace("\\", "\\\\").replace("\"", "'") + "\"}");
        });
        server.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "ops-http");
            t.setDaemon(true);
            return t;
        }));
        server.start();
        return new OpsServer(server);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void answer(HttpExchange exchange, int status, String type, String body) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
