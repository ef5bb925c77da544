package dev.onejob.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP server on loopback that counts every request it receives and answers each with a small, valid JSON
 * Schema: the bait for tests that prove something is never fetched (a schema's remote {@code $ref}). Close it after.
 */
public final class CountingServer implements AutoCloseable {
    private static final byte[] SCHEMA = "{\"type\":\"string\"}".getBytes(StandardCharsets.UTF_8);

    private final HttpServer server;
    private final AtomicInteger hits = new AtomicInteger();

    private CountingServer(HttpServer server) {
        this.server = server;
    }

    public static CountingServer start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            CountingServer counting = new CountingServer(server);
            server.createContext("/", exchange -> {
                counting.hits.incrementAndGet();
                exchange.getResponseHeaders().add("Content-Type", "application/schema+json");
                exchange.sendResponseHeaders(200, SCHEMA.length);
                exchange.getResponseBody().write(SCHEMA);
                exchange.close();
            });
            server.start();
            return counting;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a loopback HTTP server", e);
        }
    }

    /** An absolute URL on this server, e.g. {@code url("/remote.json")}. */
    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** The requests received so far. */
    public int hits() {
        return hits.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
