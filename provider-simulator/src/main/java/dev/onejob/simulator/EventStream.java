package dev.onejob.simulator;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Writes a streamed answer: status 200, {@code Content-Type: text/event-stream; charset=utf-8}, chunked transfer
 * encoding, then each event flushed on its own, so a client sees the events arrive one by one.
 *
 * <p>Consumes an exchange whose response has not started and the events to send; produces the HTTP response.
 * Events follow each other without pause (a behaviour's delay is spent before the status line), except in a paced
 * stream ({@link #writePaced}), where the events carrying pieces of the text are spaced out. Waiting holds no lock:
 * only this exchange's handler thread, one of the simulator's unbounded pool, so any number of slow streams run side
 * by side. Owns nothing; the caller closes the exchange (which ends the chunked body) or, to cut the stream, drops
 * the connection.
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

    /**
     * Writes the events like {@link #write}, but waits {@code intervalMs} before each event carrying a piece of the
     * text ({@link SseEvent#piece()}) except the first: the events before the first piece, that piece and the events
     * after the last go out at once. Returns {@code false}, having stopped, when {@code closed} is released meanwhile.
     */
    static boolean writePaced(HttpExchange exchange, List<SseEvent> events, long intervalMs, CountDownLatch closed)
            throws IOException, InterruptedException {
        OutputStream body = exchange.getResponseBody();
        boolean firstPiece = true;
        for (SseEvent event : events) {
            if (event.piece()) {
                if (!firstPiece && closed.await(intervalMs, TimeUnit.MILLISECONDS)) {
                    return false;
                }
                firstPiece = false;
            }
            body.write(event.bytes());
            body.flush();
        }
        return true;
    }
}
