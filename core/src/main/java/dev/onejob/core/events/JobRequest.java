package dev.onejob.core.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;

/**
 * A {@code job-requests} record's value ({@code events/job-request.v1.schema.json}), key the owner id: what an
 * upstream service publishes to submit a job. {@link #fromJson} reads the envelope's shape; the ingest service's
 * consumer goes further (key rules, storable text, the owner as the key) and answers each record on
 * {@code job-request-outcomes}.
 */
public record JobRequest(String ownerId, String idempotencyKey, JsonNode request) {
    public static final int VERSION = 1;

    public ObjectNode toJson() {
        ObjectNode node = Json.object();
        node.put("owner_id", ownerId);
        node.put("idempotency_key", idempotencyKey);
        node.set("request", request);
        return node;
    }

    public static JobRequest fromJson(JsonNode node) {
        Fields.object(node, "the job request");
        return new JobRequest(Fields.text(node, "owner_id"), Fields.text(node, "idempotency_key"),
                Fields.object(node.get("request"), "'request'"));
    }
}
