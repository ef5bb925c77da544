package dev.onejob.chaos.sim;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * The chaos simulator's control listener on its own loopback port, apart from the simulator's, which goes away
 * during an outage (so the simulator's own {@code /_sim/} control plane cannot end one).
 *
 * <p>Consumes {@code POST /outage?ms=N} (refuses connections for N ms; 202 once they are refused),
 * {@code POST /storm?ms=N} (refuses every request with 429 and {@code Retry-After: 1} for N ms),
 * {@code GET /health} (200 with the state), {@code GET /faults} and {@code POST /faults?on=true|false} (switches the
 * fault plan for requests from then on; 200 with the state); produces small JSON answers. Owns the JDK HttpServer;
 * the {@link ChaosSimulator} it acts on is lent. Handlers are short, so they run on the server's own thread.
 */
record ChaosControl(ChaosSimulator chaos, HttpServer server) implements AutoCloseable {

    static ChaosControl start(ChaosSimulator chaos, int port) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        ChaosControl control = new ChaosControl(chaos, server);
        server.createContext("/outage", exchange -> control.serve(exchange, "POST", control::outage));
        server.createContext("/storm", exchange -> control.serve(exchange, "POST", control::storm));
        server.createContext("/health", exchange -> control.serve(exchange, "GET", e -> control.state(200)));
        server.createContext("/faults", control::faults);
        server.createContext("/", exchange -> control.reply(exchange, new Reply(404, "{\"error\":\"not found\"}")));
        server.start();
        return control;
    }

    /** {@code http://127.0.0.1:PORT}. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private record Reply(int status, String json) {
    }

    private interface Action {
        Reply run(HttpExchange exchange);
    }

    private void serve(HttpExchange exchange, String method, Action action) throws IOException {
        if (!method.equals(exchange.getRequestMethod())) {
            reply(exchange, new Reply(405, "{\"error\":\"use " + method + "\"}"));
            return;
        }
        reply(exchange, action.run(exchange));
    }

    private Reply outage(HttpExchange exchange) {
        return forMillis(exchange, chaos::outage, ms -> "{\"outage_ms\":" + ms + ",\"refusing\":true}");
    }

    private Reply storm(HttpExchange exchange) {
        return forMillis(exchange, chaos::rateLimitStorm, ms -> "{\"storm_ms\":" + ms + "}");
    }

    /** Starts {@code fault} for the query's {@code ms}: 202 with {@code answer}, 400 for a bad ms, 409 once closed. */
    private static Reply forMillis(HttpExchange exchange, LongConsumer fault, LongFunction<String> answer) {
        String ms = query(exchange).get("ms");
        try {
            long duration = Long.parseLong(ms == null ? "" : ms);
            fault.accept(duration);
            return new Reply(202, answer.apply(duration));
        } catch (IllegalArgumentException e) {
            return new Reply(400, "{\"error\":\"ms must be a whole number of milliseconds > 0\"}");
        } catch (IllegalStateException e) {
            return new Reply(409, "{\"error\":\"closed\"}");
        }
    }

    private void faults(HttpExchange exchange) throws IOException {
        if ("GET".equals(exchange.getRequestMethod())) {
            reply(exchange, state(200));
            return;
        }
        serve(exchange, "POST", e -> {
            String on = query(e).get("on");
            if (!"true".equals(on) && !"false".equals(on)) {
                return new Reply(400, "{\"error\":\"on must be true or false\"}");
            }
            chaos.setFaultsOn(Boolean.parseBoolean(on));
            return state(200);
        });
    }

    private Reply state(int status) {
        return new Reply(status, "{\"name\":\"" + chaos.name() + "\",\"url\":\"" + chaos.url() + "\",\"refusing\":"
                + chaos.isRefusingConnections() + ",\"faults\":" + chaos.faultsOn() + ",\"plan\":\""
                + chaos.activePlan().describe() + "\"}");
    }

    private void reply(HttpExchange exchange, Reply reply) throws IOException {
        byte[] bytes = reply.json().getBytes(StandardCharsets.UTF_8);
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(reply.status(), bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    private static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> values = new HashMap<>();
        String query = exchange.getRequestURI().getRawQuery();
        if (query != null) {
            for (String pair : query.split("&")) {
                int equals = pair.indexOf('=');
                if (equals > 0) {
                    values.put(pair.substring(0, equals), pair.substring(equals + 1));
                }
            }
        }
        return values;
    }
}
