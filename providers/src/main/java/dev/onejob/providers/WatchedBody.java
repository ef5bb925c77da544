package dev.onejob.providers;

import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A request body that notices when the HTTP client first asks about it.
 *
 * <p>Consumes the body bytes; produces them to the HTTP client and answers {@link #mayHaveLeft()}. An HTTP/1.1
 * client must know the body's length (or choose chunking) before it writes the request head, so while it has
 * neither asked for the length nor subscribed, not one byte of the request has been written: a failure then
 * (TCP connect, TLS handshake) means "not sent" for certain. Once asked, the request may have left. A body
 * {@link #seal() sealed} while untouched refuses to be asked, so a request given up before it started to leave never
 * leaves. Owns one state.
 */
final class WatchedBody implements HttpRequest.BodyPublisher {

    private static final int UNTOUCHED = 0;
    private static final int TOUCHED = 1;
    private static final int SEALED = 2;

    private final HttpRequest.BodyPublisher bytes;
    private final AtomicInteger state = new AtomicInteger(UNTOUCHED);

    WatchedBody(byte[] body) {
        this.bytes = HttpRequest.BodyPublishers.ofByteArray(body);
    }

    /** False only while the HTTP client has not started on the request head. */
    boolean mayHaveLeft() {
        return state.get() == TOUCHED;
    }

    /**
     * True when the HTTP client had not started on the request: from now on it cannot (it is refused the body), so
     * the request never leaves. False when it had started: the request may have left.
     */
    boolean seal() {
        return state.compareAndSet(UNTOUCHED, SEALED) || state.get() == SEALED;
    }

    @Override
    public long contentLength() {
        touch();
        return bytes.contentLength();
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
        touch();
        bytes.subscribe(subscriber);
    }

    private void touch() {
        if (!state.compareAndSet(UNTOUCHED, TOUCHED) && state.get() == SEALED) {
            throw new IllegalStateException("the call was given up before its request was sent");
        }
    }
}
