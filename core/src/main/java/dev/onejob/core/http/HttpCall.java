package dev.onejob.core.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * One HTTP request and its answer, as a handler sees them: what {@link WebServer} hands every route. Header values
 * are exactly as sent (the server refuses a value with a control character before any route sees it); an answer is
 * sent once.
 */
public interface HttpCall {
    /** The request method, as sent. */
    String method();

    /** The path, still percent-encoded: an encoded slash inside an id is part of the id, never a separator. */
    String rawPath();

    /** The query string, still percent-encoded, or null when there is none. */
    String rawQuery();

    /** The first value of a request header, or null. */
    String header(String name);

    /** Every value of a request header, in the order sent (empty when there is none). */
    List<String> headers(String name);

    /** The request body as it arrives. */
    InputStream body();

    /** Sets a header of the answer; call before {@link #send}. */
    void setHeader(String name, String value);

    /** Sends the answer: the status, a Content-Type (ignored for an empty body) and the body. */
    void send(int status, String contentType, byte[] body) throws IOException;

    /**
     * How long ago the request head was complete, less the time its body took to arrive: the time it has waited for
     * a thread, and been served so far (a slow client's upload is not the server's wait).
     */
    long sinceHeadNanos();

    /**
     * Says the route answers after it returns, from another thread (when its commit is done, say): the server then
     * holds the exchange open, with no thread waiting on it, instead of answering 500 for a route that gave no answer.
     * The route must then send exactly once, whatever happens.
     */
    void later();

    /**
     * Starts an answer whose body is sent in pieces as they come (Server-Sent Events): the status and headers go now,
     * chunked, and the exchange stays open with no thread waiting on it (as after {@link #later}) until the stream is
     * closed, by {@link Stream#close} or because the client left.
     */
    Stream stream(int status, String contentType) throws IOException;

    /** A body being sent in pieces. Writes are queued and sent in order, one at a time. */
    interface Stream {
        /** Queues {@code chunk}; false when the stream is closed already (the client left, or it was closed). */
        boolean write(byte[] chunk);

        /** Ends the answer once what is queued is sent. */
        void close();

        boolean isOpen();

        /** Runs {@code whenClosed} once the stream is closed, whichever way; at once if it is closed already. */
        void onClose(Runnable whenClosed);
    }

    /** Whether {@link #later} was called. */
    boolean isLater();

    /** The status sent, or 0 while none was. */
    int status();
}
