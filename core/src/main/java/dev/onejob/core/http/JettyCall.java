package dev.onejob.core.http;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** {@link HttpCall} over Jetty's request and response. */
final class JettyCall implements HttpCall {
    private final Request request;
    private final Response response;
    private final Callback callback;
    private volatile int status;
    private volatile boolean later;
    /** The body, read before the route runs ({@link BodyReader}). */
    private volatile byte[] body = new byte[0];
    private volatile long waitedForClient;

    JettyCall(Request request, Response response, Callback callback) {
        this.request = request;
        this.response = response;
        this.callback = callback;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String rawPath() {
        String path = request.getHttpURI().getPath();
        return path == null ? "/" : path;
    }

    @Override
    public String rawQuery() {
        return request.getHttpURI().getQuery();
    }

    @Override
    public String header(String name) {
        return request.getHeaders().get(name);
    }

    @Override
    public List<String> headers(String name) {
        return request.getHeaders().getValuesList(name);
    }

    @Override
    public InputStream body() {
        return new ByteArrayInputStream(body);
    }

    /** Ends the exchange without an answer, after sending one failed. */
    void failed(Throwable failure) {
        callback.failed(failure);
    }

    /** The body, and how long it took the client to send it after its head (not time spent waiting for a thread). */
    void body(byte[] read, long waitedForClientNanos) {
        body = read;
        waitedForClient = waitedForClientNanos;
    }

    /** Answers 408 for a body that did not arrive, and closes the connection (its body is still unread). */
    void bodyStalled(String reason) throws IOException {
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        send(408, ProblemJson.CONTENT_TYPE, ProblemJson.forStatus(408, reason));
    }

    @Override
    public void setHeader(String name, String value) {
        response.getHeaders().put(name, value);
    }

    @Override
    public synchronized void send(int code, String contentType, byte[] body) throws IOException {
        if (status != 0) {
            throw new IllegalStateException("an answer was sent already (" + status + ")");
        }
        status = code;
        response.setStatus(code);
        if (body.length > 0) {
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        }
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    @Override
    public void later() {
        later = true;
        // The route answers when its work is done, and owns that moment (a commit, a wait's deadline): no
        // response bytes flow meanwhile, and the connection's idle timeout must not fail the request for it.
        request.addIdleTimeoutListener(timeout -> false);
    }

    @Override
    public synchronized Stream stream(int code, String contentType) throws IOException {
        if (status != 0) {
            throw new IllegalStateException("an answer was sent already (" + status + ")");
        }
        later();
        status = code;
        response.setStatus(code);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        JettyStream stream = new JettyStream(response, callback);
        request.addFailureListener(failure -> stream.failed(failure));
        return stream;
    }

    @Override
    public boolean isLater() {
        return later;
    }

    @Override
    public long sinceHeadNanos() {
        // A slow client's body is its own time, not the server's: only the rest is a wait the server caused.
        return System.nanoTime() - request.getHeadersNanoTime() - waitedForClient;
    }

    @Override
    public int status() {
        return status;
    }
}
