package dev.onejob.core.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/** RFC 9457 problem bodies for the answers the server itself gives, in the same shape as the API's own. */
public final class ProblemJson {
    public static final String TYPE_BASE = "https://onejob.dev/problems/";
    public static final String CONTENT_TYPE = "application/problem+json";

    /** A problem type and its title. */
    private record Kind(String type, String title) {
    }

    /** What {@link WebServer} answers itself, by status, before or instead of any route. */
    private static final Map<Integer, Kind> SERVER = Map.of(
            400, new Kind("bad-request", "Bad request"),
            408, new Kind("request-timeout", "Request timeout"),
            414, new Kind("uri-too-long", "URI too long"),
            431, new Kind("request-header-fields-too-large", "Request header fields too large"),
            500, new Kind("internal", "Internal error"),
            505, new Kind("http-version-not-supported", "HTTP version not supported"));

    /** What an ops endpoint answers, besides {@link #SERVER}. */
    private static final Map<Integer, Kind> OPS = Map.of(
            404, new Kind("not-found", "Not found"),
            405, new Kind("method-not-allowed", "Method not allowed"));

    private ProblemJson() {
    }

    public static ObjectNode body(int status, String type, String title, String detail) {
        ObjectNode body = Json.object();
        body.put("type", TYPE_BASE + type);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        return body;
    }

    /**
     * The problem types the server sends on its own, whatever the routes, as full type URI to status: the API's
     * document lists them, and its test checks that it does.
     */
    public static Map<String, Integer> serverTypes() {
        Map<String, Integer> types = new TreeMap<>();
        SERVER.forEach((status, kind) -> types.put(TYPE_BASE + kind.type(), status));
        return types;
    }

    /** The problem for a status the server answers itself (bad HTTP, limits, timeouts, an ops endpoint's 404). */
    public static byte[] forStatus(int status, String detail) {
        Kind kind = SERVER.getOrDefault(status, OPS.get(status));
        if (kind == null) {
            kind = status >= 500 ? SERVER.get(500) : SERVER.get(400);
        }
        return Json.write(body(status, kind.type(), kind.title(), detail)).getBytes(StandardCharsets.UTF_8);
    }
}
