package dev.onejob.worker;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.UUID;

/**
 * An {@code attempt-commands} record ({@code events/attempt-command.v1.schema.json}) as the worker needs it. A
 * record that does not read as one is dead-lettered with the reason.
 */
record AttemptCommand(UUID attemptId, UUID jobId, String provider, String contract, JsonNode variables) {

    static AttemptCommand fromJson(JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("the command must be a JSON object");
        }
        JsonNode variables = node.path("request").path("variables");
        if (!variables.isObject()) {
            throw new IllegalArgumentException("'request.variables' is missing or not an object");
        }
        return new AttemptCommand(uuid(node, "attempt_id"), uuid(node, "job_id"), text(node, "provider"),
                text(node, "contract"), variables);
    }

    private static UUID uuid(JsonNode node, String field) {
        try {
            return UUID.fromString(text(node, field));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + field + "' is not a UUID");
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isEmpty()) {
            throw new IllegalArgumentException("'" + field + "' is missing or not a string");
        }
        return value.asText();
    }
}
