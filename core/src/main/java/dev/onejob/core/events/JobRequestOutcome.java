package dev.onejob.core.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A {@code job-request-outcomes} record ({@code events/job-request-outcome.v2.schema.json}): the one answer each
 * {@code job-requests} record gets. The requester's identity as far as it could be read (null fields otherwise),
 * the outcome ({@code CREATED}, {@code REPLAYED}, {@code CONFLICT}, {@code INVALID}, and since version 2
 * {@code REJECTED}: the owner's limits refused a new job), the job id where there is one,
 * the problem otherwise, and where the request was, so a requester without a request id can still correlate.
 */
public record JobRequestOutcome(String requestId, String ownerId, String idempotencyKey, String outcome, UUID jobId,
                                Problem problem, Source source) {
    public static final int VERSION = 2;

    /** What was wrong: a problem type URI, a detail, and (for INVALID) each error; {@code errors} may be null. */
    public record Problem(String type, String detail, List<String> errors) {
        public Problem {
            errors = errors == null ? null : List.copyOf(errors);
        }
    }

    /** Where the answered request was. */
    public record Source(String topic, int partition, long offset) {
    }

    public ObjectNode toJson() {
        ObjectNode node = Json.object();
        Fields.put(node, "request_id", requestId);
        Fields.put(node, "owner_id", ownerId);
        Fields.put(node, "idempotency_key", idempotencyKey);
        node.put("outcome", outcome);
        Fields.put(node, "job_id", jobId);
        if (problem == null) {
            node.putNull("problem");
        } else {
            ObjectNode p = node.putObject("problem");
            p.put("type", problem.type());
            p.put("detail", problem.detail());
            if (problem.errors() != null) {
                ArrayNode errors = p.putArray("errors");
                problem.errors().forEach(errors::add);
            }
        }
        ObjectNode s = node.putObject("source");
        s.put("topic", source.topic());
        s.put("partition", source.partition());
        s.put("offset", source.offset());
        return node;
    }

    public static JobRequestOutcome fromJson(JsonNode node) {
        Fields.object(node, "the job request outcome");
        JsonNode p = node.path("problem");
        Problem problem = null;
        if (p.isObject()) {
            List<String> errors = null;
            if (p.path("errors").isArray()) {
                errors = new ArrayList<>();
                for (JsonNode error : p.get("errors")) {
                    errors.add(error.asText());
                }
            }
            problem = new Problem(Fields.text(p, "type"), Fields.text(p, "detail"), errors);
        }
        JsonNode s = Fields.object(node.get("source"), "'source'");
        return new JobRequestOutcome(Fields.optionalText(node, "request_id"), Fields.optionalText(node, "owner_id"),
                Fields.optionalText(node, "idempotency_key"), Fields.text(node, "outcome"),
                Fields.optionalUuid(node, "job_id"), problem,
                new Source(Fields.text(s, "topic"), (int) Fields.number(s, "partition"), Fields.number(s, "offset")));
    }
}
