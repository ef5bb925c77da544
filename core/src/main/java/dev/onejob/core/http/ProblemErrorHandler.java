package dev.onejob.core.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/** Every error the server answers itself, as problem+json instead of Jetty's HTML page. */
final class ProblemErrorHandler extends ErrorHandler {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        int code = response.getStatus() >= 400 ? response.getStatus() : 500;
        Object message = request.getAttribute(ERROR_MESSAGE);
        String detail = message == null ? "the request could not be served" : message.toString();
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, ProblemJson.CONTENT_TYPE);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.write(true, ByteBuffer.wrap(ProblemJson.forStatus(code, detail(code, detail))), callback);
        return true;
    }

    @Override
    public ByteBuffer badMessageError(int code, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, ProblemJson.CONTENT_TYPE);
        return ByteBuffer.wrap(ProblemJson.forStatus(code, detail(code, reason == null ? "" : reason)));
    }

    private static String detail(int code, String reason) {
        if (code == 500 || reason.isBlank() || reason.contains("Exception") || reason.contains("org.eclipse")) {
            // Never an exception's name or message: what failed inside is in the log, not the answer.
            return code >= 500 ? "the server could not complete the request" : "the request is not valid HTTP";
        }
        return switch (code) {
            case 400 -> "the request is not valid HTTP: " + reason;
            case 414, 431 -> "the request head is larger than the server's limit: " + reason;
            case 505 -> "this server speaks HTTP/1.0 and HTTP/1.1: " + reason;
            default -> reason;
        };
    }
}
