package dev.onejob.providers;

import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request body that notices when the HTTP client first asks about it.
 *
 * <p>Consumes the body bytes; produces them to the HTTP client and answers {@link #mayHaveLeft()}. An HTTP/1.1
 * client must know the body's length (or choose chunking) before it writes the request head, so while it has
 * neither asked for the length nor subscribed, not one byte of the request has been written: a failure then
 * (TCP connect, TLS handshake) means "not sent" for certain. Once asked, the request may have left. Owns one flag.
 */
final class WatchedBody implements HttpRequest.BodyPublisher {

    private final HttpRequest.BodyPublisher bytes;
    private final AtomicBoolean touched = new AtomicBoolean();

    WatchedBody(byte[] body) {
        this.bytes = HttpRequest.BodyPublishers.ofByteArray(body);
    }

    /** False only while the HTTP client has not started on the request head. */
    boolean mayHaveLeft() {
        return touched.get();
    }

    @Override
    public long contentLength() {
        touched.set(true);
        return bytes.contentLength();
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
        touched.set(true);
        bytes.subscribe(subscriber);
    }
}
