package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.util.List;

/**
 * An RFC 9457 problem detail: a stable {@code type} URI per cause, a title, the HTTP status and a human detail,
 * plus extension members where the caller needs them (the live attempt's id, the list of validation errors).
 * Thrown by handlers; the server turns it into an {@code application/problem+json} answer.
 */
public final class Problem extends RuntimeException {
    public static final String TYPE_BASE = "https://onejob.dev/problems/";

    private final int status;
    private final String type;
    private final String title;
    private final ObjectNode extensions = Json.object();

    public Problem(int status, String type, String title, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.type = type;
        this.title = title;
    }

    public Problem with(String member, String value) {
        extensions.put(member, value);
        return this;
    }

    public Problem with(String member, JsonNode value) {
        extensions.set(member, value);
        return this;
    }

    /** The extension member {@code member}, or null. */
    public JsonNode extension(String member) {
        return extensions.get(member);
    }

    public String title() {
        return title;
    }

    public Problem withErrors(List<String> errors) {
        var array = extensions.putArray("errors");
        errors.forEach(array::add);
        return this;
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    public ObjectNode body(String instance) {
        ObjectNode body = Json.object();
        body.put("type", TYPE_BASE + type);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", getMessage());
        if (instance != null) {
            body.put("instance", instance);
        }
        body.setAll(extensions);
        return body;
    }

    public static Problem unauthorized(String detail) {
        return new Problem(401, "unauthorized", "Missing or invalid credentials", detail);
    }

    public static Problem forbidden(String detail) {
        return new Problem(403, "forbidden", "Not allowed", detail);
    }

    public static Problem notFound(String detail) {
        return new Problem(404, "not-found", "Not found", detail);
    }

    public static Problem invalidRequest(String detail, List<String> errors) {
        return new Problem(422, "invalid-request", "The request is not valid", detail).withErrors(errors);
    }
}
