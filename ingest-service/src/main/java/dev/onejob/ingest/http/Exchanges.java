package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import dev.onejob.core.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** Reading requests and writing answers on the JDK HTTP server: bounded bodies, JSON, problem+json. */
final class Exchanges {
    private Exchanges() {
    }

    /** Reads at most {@code limit} bytes; a longer body (declared or actual) is a 413 problem. */
    static byte[] body(HttpExchange exchange, int limit) throws IOException {
        String declared = exchange.getRequestHeaders().getFirst("Content-Length");
        if (declared != null) {
            try {
                if (Long.parseLong(declared.trim()) > limit) {
                    throw tooLarge(limit);
                }
            } catch (NumberFormatException e) {
                throw new Problem(400, "bad-request", "Bad request", "Content-Length is not a number");
            }
        }
        try (InputStream in = exchange.getRequestBody()) {
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
            String reason = e instanceof com.fasterxml.jackson.core.JsonProcessingException jpe
                    ? jpe.getOriginalMessage() : e.getMessage();
            throw new Problem(422, "malformed-json", "The body is not valid JSON", "the request body is not valid "
                    + "JSON: " + reason);
        }
    }

    static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> params = new HashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw == null) {
            return params;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            params.putIfAbsent(name, value);
        }
        return params;
    }

    static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    static void sendJson(HttpExchange exchange, int status, JsonNode body) throws IOException {
        send(exchange, status, "application/json", Json.write(body).getBytes(StandardCharsets.UTF_8));
    }

    static void sendProblem(HttpExchange exchange, Problem problem) throws IOException {
        if (problem.status() == 401) {
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"onejob\"");
        }
        var body = problem.body(exchange.getRequestURI().getPath());
        if ((problem.status() == 429 || problem.status() == 503) && body.has("retry_after_seconds")) {
            exchange.getResponseHeaders().set("Retry-After", body.get("retry_after_seconds").asText());
        }
        send(exchange, problem.status(), "application/problem+json", Json.write(body).getBytes(StandardCharsets.UTF_8));
    }
}
