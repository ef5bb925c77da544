package dev.onejob.core.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.time.Instant;
import java.util.UUID;

/**
 * An {@code attempt-commands} record ({@code events/attempt-command.v1.schema.json}): what a worker needs to make
 * one call, the attempt's identity and the job's request. Written by the ledger through the outbox, read by the
 * worker; a record that does not read is dead-lettered with the reason {@link #fromJson} gives.
 */
public record AttemptCommand(UUID attemptId, UUID jobId, String ownerId, int attemptNumber, String provider,
                             long jobVersion, String contract, JsonNode request, Instant createdAt) {
    public static final int VERSION = 1;

    /** The prompt's variables, from the request. */
    public JsonNode variables() {
        return request.path("variables");
    }

    public ObjectNode toJson() {
        ObjectNode command = Json.object();
        command.put("attempt_id", attemptId.toString());
        command.put("job_id", jobId.toString());
        command.put("owner_id", ownerId);
        command.put("attempt_number", attemptNumber);
        command.put("provider", provider);
        command.put("job_version", jobVersion);
        command.put("contract", contract);
        command.set("request", request);
        command.put("created_at", createdAt.toString());
        return command;
    }

    public static AttemptCommand fromJson(JsonNode node) {
        Fields.object(node, "the command");
        JsonNode request = node.path("request");
        if (!request.path("variables").isObject()) {
            throw new IllegalArgumentException("'request.variables' is missing or not an object");
        }
        return new AttemptCommand(Fields.uuid(node, "attempt_id"), Fields.uuid(node, "job_id"),
                Fields.text(node, "owner_id"), (int) Fields.number(node, "attempt_number"),
                Fields.text(node, "provider"), Fields.number(node, "job_version"), Fields.text(node, "contract"),
                request, Fields.instant(node, "created_at"));
    }
}
