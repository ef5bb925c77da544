package dev.onejob.stack.infra;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A stand-in ingest instance for the load balancer tests: a JDK HTTP server on a free loopback port that records
 * each request it receives (method and {@code Idempotency-Key}) before answering with its own name, optionally
 * only after a delay. Owns its server and handler threads.
 */
final class RecordingUpstream implements AutoCloseable {
    record Received(String method, String idempotencyKey) {
    }

    private final String name;
    private final Duration delay;
    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<Received> received = new CopyOnWriteArrayList<>();

    RecordingUpstream(String name, Duration delay) throws IOException {
        this.name = name;
        this.delay = delay;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 50);
        server.createContext("/", this::handle);
        // A delayed answer must not hold up the next request, so each exchange gets its own thread.
        server.setExecutor(threads);
        server.start();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            received.add(new Received(exchange.getRequestMethod(),
                    exchange.getRequestHeaders().getFirst("Idempotency-Key")));
            Thread.sleep(delay.toMillis());
            byte[] body = name.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // nginx gave up on this answer (read timeout) and closed the connection; that is the point of a delay.
        }
    }

    int port() {
        return server.getAddress().getPort();
    }

    List<Received> received() {
        return List.copyOf(received);
    }

    List<String> keys() {
        return received.stream().map(Received::idempotencyKey).toList();
    }

    /** Stops listening at once: new connections are refused, as with a crashed instance. */
    void stop() {
        server.stop(0);
        threads.shutdownNow();
    }

    @Override
    public void close() {
        stop();
    }
}
