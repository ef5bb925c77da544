package dev.onejob.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** A test's HTTP call to a onejob API: a bearer token, a JSON body, its own headers; a failed exchange is thrown. */
public final class JsonCalls {
    private JsonCalls() {
    }

    /**
     * Sends {@code method} on {@code uri} with {@code token} as the bearer token (none when null), {@code headers},
     * and {@code body} as {@code application/json} (no body when null); answers within 30 s or throws.
     */
    public static HttpResponse<String> send(HttpClient http, String method, URI uri, String token,
                                            Map<String, String> headers, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        headers.forEach(request::header);
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("HTTP " + method + " " + uri.getPath() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
