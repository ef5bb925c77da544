package dev.onejob.core.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A {@code job-results} record ({@code events/job-result.v1.schema.json}): one per finished job, with the result
 * or the final error and the attempt history in brief. {@code result} and {@code error} are null when absent.
 */
public record JobResult(UUID jobId, String ownerId, String idempotencyKey, String status, UUID completedBy,
                        JsonNode result, Error error, List<AttemptBrief> attempts, Instant finishedAt) {
    public static final int VERSION = 1;

    /** The job's final error. */
    public record Error(String code, String message) {
    }

    /** One attempt of the job, in brief. */
    public record AttemptBrief(UUID attemptId, int number, String provider, String status, String errorCode) {
    }

    public JobResult {
        attempts = List.copyOf(attempts);
    }

    public ObjectNode toJson() {
        ObjectNode node = Json.object();
        node.put("job_id", jobId.toString());
        node.put("owner_id", ownerId);
        node.put("idempotency_key", idempotencyKey);
        node.put("status", status);
        Fields.put(node, "completed_by", completedBy);
        node.set("result", result == null ? Json.MAPPER.nullNode() : result);
        if (error == null) {
            node.putNull("error");
        } else {
            ObjectNode e = node.putObject("error");
            e.put("code", error.code());
            Fields.put(e, "message", error.message());
        }
        ArrayNode history = node.putArray("attempts");
        for (AttemptBrief attempt : attempts) {
            ObjectNode brief = history.addObject();
            brief.put("attempt_id", attempt.attemptId().toString());
            brief.put("number", attempt.number());
            brief.put("provider", attempt.provider());
            brief.put("status", attempt.status());
            Fields.put(brief, "error_code", attempt.errorCode());
        }
        node.put("finished_at", finishedAt.toString());
        return node;
    }

    public static JobResult fromJson(JsonNode node) {
        Fields.object(node, "the job result");
        JsonNode e = node.path("error");
        Error error = e.isObject() ? new Error(Fields.text(e, "code"), Fields.optionalText(e, "message")) : null;
        List<AttemptBrief> attempts = new ArrayList<>();
        for (JsonNode a : node.path("attempts")) {
            attempts.add(new AttemptBrief(Fields.uuid(a, "attempt_id"), (int) Fields.number(a, "number"),
                    Fields.text(a, "provider"), Fields.text(a, "status"), Fields.optionalText(a, "error_code")));
        }
        JsonNode result = node.path("result");
        return new JobResult(Fields.uuid(node, "job_id"), Fields.text(node, "owner_id"),
                Fields.text(node, "idempotency_key"), Fields.text(node, "status"),
                Fields.optionalUuid(node, "completed_by"), result.isMissingNode() || result.isNull() ? null : result,
                error, attempts, Fields.instant(node, "finished_at"));
    }
}
