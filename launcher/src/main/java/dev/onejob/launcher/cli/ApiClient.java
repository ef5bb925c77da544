package dev.onejob.launcher.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.onejob.core.json.Json;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A small client of the ingest service's HTTP API for the operator commands and the demo.
 *
 * <p>Consumes a base URL and one bearer token; produces each answer as its status and JSON body (problem details
 * included); turns "cannot connect" and "no answer in time" into {@link CliFailure}s with exit status 3. Owns one
 * JDK {@link HttpClient} (HTTP/1.1, as the service speaks it).
 */
public final class ApiClient {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(CONNECT_TIMEOUT).build();
    private final String baseUrl;
    private final String token;
    private final Duration timeout;

    public ApiClient(String baseUrl, String token, Duration timeout) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.token = token;
        this.timeout = timeout;
    }

    /** One answer of the API: its status, its body as JSON (a text node when it is not JSON) and its headers. */
    public record Response(int status, JsonNode body, Map<String, List<String>> headers) {
        public boolean ok() {
            return status >= 200 && status < 300;
        }

        /** The last segment of a problem's {@code type} ({@code attempt-live}), or an empty string. */
        public String problemType() {
            String type = body.path("type").asText("");
            return type.substring(type.lastIndexOf('/') + 1);
        }

        public Optional<String> header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .flatMap(e -> e.getValue().stream()).findFirst();
        }

        /** {@code 403 forbidden: this token lacks the 'operate' role}, for messages. */
        public String describe() {
            String detail = body.path("detail").asText(body.isTextual() ? body.asText() : "");
            String type = problemType();
            return status + (type.isEmpty() ? "" : " " + type) + (detail.isEmpty() ? "" : ": " + detail);
        }

        /**
         * The exit status an operator command ends with for this answer: 0 for 2xx; 1 when the service refused
         * (403, 404, 409); 2 when the request or the token was wrong (400, 401, 413, 422); 3 when the service
         * failed or is not ready (5xx).
         */
        public int exitCode() {
            if (ok()) {
                return ExitCode.OK;
            }
            return switch (status) {
                case 403, 404, 409 -> ExitCode.REFUSED;
                case 400, 401, 405, 413, 415, 422 -> ExitCode.USAGE;
                default -> status >= 500 ? ExitCode.UNREACHABLE : ExitCode.REFUSED;
            };
        }
    }

    public Response get(String path) {
        return send(request(path).GET());
    }

    /** A GET with {@code Prefer: wait=N}: the server answers once the job is finished or after N seconds. */
    public Response getWaiting(String path, Duration wait) {
        return send(request(path).timeout(timeout.plus(wait)).header("Prefer", "wait=" + wait.toSeconds()).GET());
    }

    public Response post(String path, Map<String, String> headers, JsonNode body) {
        HttpRequest.Builder request = request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body == null ? "{}" : Json.write(body)));
        headers.forEach(request::header);
        return send(request);
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(timeout)
                .header("Authorization", "Bearer " + token).header("Accept", "application/json");
    }

    private Response send(HttpRequest.Builder builder) {
        HttpRequest request = builder.build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), parse(response.body()), response.headers().map());
        } catch (ConnectException e) {
            throw CliFailure.unreachable("cannot reach the onejob API at " + baseUrl + " (connection refused): "
                    + "is it running (./onejob dev)? give its address with --url");
        } catch (HttpTimeoutException e) {
            throw CliFailure.unreachable("the onejob API at " + baseUrl + " did not answer " + request.method() + " "
                    + request.uri().getPath() + " within " + timeout.toSeconds() + " s");
        } catch (IOException e) {
            throw CliFailure.unreachable("cannot talk to the onejob API at " + baseUrl + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CliFailure.unreachable("interrupted while waiting for " + baseUrl);
        }
    }

    private static JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return Json.object();
        }
        try {
            return Json.parse(body);
        } catch (IllegalArgumentException e) {
            return TextNode.valueOf(body);
        }
    }
}
