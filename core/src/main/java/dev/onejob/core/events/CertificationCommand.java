package dev.onejob.core.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * A {@code certification-commands} record ({@code events/certification-command.v1.schema.json}): one certification
 * request for a worker to run, a provider and a contract or every one of either. Written through the outbox by the
 * ingest service ({@code POST /v1/certifications}) and the reconciler's schedule, read by the workers; a record that
 * does not read is dead-lettered with the reason {@link #fromJson} gives.
 */
public record CertificationCommand(UUID requestId, Optional<String> provider, Optional<String> contract,
                                   String requestedBy, Instant requestedAt) {
    public static final int VERSION = 1;

    public ObjectNode toJson() {
        ObjectNode command = Json.object();
        command.put("request_id", requestId.toString());
        command.put("provider", provider.orElse(null));
        command.put("contract", contract.orElse(null));
        command.put("requested_by", requestedBy);
        command.put("requested_at", requestedAt.toString());
        return command;
    }

    public static CertificationCommand fromJson(JsonNode node) {
        Fields.object(node, "the command");
        return new CertificationCommand(Fields.uuid(node, "request_id"), optionalId(node, "provider"),
                optionalId(node, "contract"), Fields.text(node, "requested_by"), Fields.instant(node, "requested_at"));
    }

    private static Optional<String> optionalId(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isTextual() || value.asText().isEmpty()) {
            throw new IllegalArgumentException("'" + field + "' is not a non-empty string or null");
        }
        return Optional.of(value.asText());
    }
}
