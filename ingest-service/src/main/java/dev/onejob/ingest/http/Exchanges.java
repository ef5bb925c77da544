package dev.onejob.ingest.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** Reading requests and writing answers: bounded bodies, JSON, problem+json. */
final class Exchanges {
    private Exchanges() {
    }

    /**
     * The body, refused with a 413 problem when it is longer than {@code limit} (as declared, or as read: the server
     * keeps one byte past its limit, which is the routes' limit, and drained a modest excess already).
     */
    static byte[] body(HttpCall exchange, int limit) throws IOException {
        String declared = exchange.header("Content-Length");
        if (declared != null) {
            try {
                if (Long.parseLong(declared.trim()) > limit) {
                    throw tooLarge(limit);
                }
            } catch (NumberFormatException e) {
                throw new Problem(400, "bad-request", "Bad request", "Content-Length is not a number");
            }
        }
        try (InputStream in = exchange.body()) {
            byte[] bytes = in.readNBytes(limit + 1);
            if (bytes.length > limit) {
                throw tooLarge(limit);
            }
            return bytes;
        }
    }

    private static Problem tooLarge(int limit) {
        return new Problem(413, "payload-too-large", "Payload too large",
                "the request body is larger than the limit of " + limit + " bytes");
    }

    static JsonNode json(byte[] body) {
        if (body.length == 0) {
            throw new Problem(422, "malformed-json", "The body is not valid JSON", "the request body is empty");
        }
        try {
            return Json.MAPPER.readTree(body);
        } catch (IOException e) {
            String reason = e instanceof JsonProcessingException jpe
                    ? jpe.getOriginalMessage() : e.getMessage();
            throw new Problem(422, "malformed-json", "The body is not valid JSON", "the request body is not valid "
                    + "JSON: " + reason);
        }
    }

    static Map<String, String> query(HttpCall exchange) {
        Map<String, String> params = new HashMap<>();
        String raw = exchange.rawQuery();
        if (raw == null) {
            return params;
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            try {
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                params.putIfAbsent(name, value);
            } catch (IllegalArgumentException e) {
                throw new Problem(400, "bad-request", "Bad request", "the query string holds a malformed "
                        + "percent-escape");
            }
        }
        return params;
    }

    static void send(HttpCall exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.setHeader("Content-Type", contentType);
        exchange.setHeader("Cache-Control", "no-store");
        exchange.send(status, contentType, body);
    }

    static void sendJson(HttpCall exchange, int status, JsonNode body) throws IOException {
        send(exchange, status, "application/json", Json.write(body).getBytes(StandardCharsets.UTF_8));
    }

    static void sendProblem(HttpCall exchange, Problem problem) throws IOException {
        if (problem.status() == 401) {
            exchange.setHeader("WWW-Authenticate", "Bearer realm=\"onejob\"");
        }
        var body = problem.body(exchange.rawPath());
        if ((problem.status() == 429 || problem.status() == 503) && body.has("retry_after_seconds")) {
            exchange.setHeader("Retry-After", body.get("retry_after_seconds").asText());
        }
        send(exchange, problem.status(), "application/problem+json", Json.write(body).getBytes(StandardCharsets.UTF_8));
    }
}
