package dev.onejob.simulator;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * Writes a streamed answer: status 200, {@code Content-Type: text/event-stream; charset=utf-8}, chunked transfer
 * encoding, then each event flushed on its own, so a client sees the events arrive one by one.
 *
 * <p>Consumes an exchange whose response has not started and the events to send; produces the HTTP response.
 * Events follow each other without pause: a behaviour's delay is spent before the status line. Owns nothing; the
 * caller closes the exchange (which ends the chunked body) or, to cut the stream, drops the connection.
 */
final class EventStream {

    static final String CONTENT_TYPE = "text/event-stream; charset=utf-8";

    private EventStream() {
    }

    /** Sends the status line and headers; the body stays open for {@link #write}. */
    static void open(HttpExchange exchange, String requestIdHeader, String requestId) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        exchange.getResponseHeaders().set(requestIdHeader, requestId);
        exchange.sendResponseHeaders(200, 0);
    }

    /** Writes the events in order, each flushed as its own chunk. */
    static void write(HttpExchange exchange, List<SseEvent> events) throws IOException {
        OutputStream body = exchange.getResponseBody();
        for (SseEvent event : events) {
            body.write(event.bytes());
            body.flush();
        }
    }
}
