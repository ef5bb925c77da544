package dev.onejob.ingest.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.StorableText;
import dev.onejob.core.ledger.IdempotencyKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Reads one {@code job-requests} record: key owner id, value {@code {"owner_id", "idempotency_key", "request"}},
 * optional {@code request_id} header. A record that cannot be read as that envelope is poison: it goes to the
 * dead-letter topic with the reason, and the consumer moves on.
 */
final class JobRequestRecords {
    static final String REQUEST_ID_HEADER = Headers.REQUEST_ID;

    private JobRequestRecords() {
    }

    /** A readable envelope, or the reason it is poison. */
    sealed interface Parsed {
    }

    record Envelope(String ownerId, String idempotencyKey, JsonNode request, String requestId) implements Parsed {
    }

    record Poison(String reason, String ownerId, String idempotencyKey, String requestId) implements Parsed {
    }

    static Parsed parse(ConsumerRecord<byte[], byte[]> record) {
        String requestId = header(record, REQUEST_ID_HEADER);
        if (record.value() == null) {
            return new Poison("the record has no value (a tombstone)", null, null, requestId);
        }
        JsonNode value;
        try {
            value = Json.MAPPER.readTree(record.value());
        } catch (IOException e) {
            return new Poison("the value is not valid JSON (" + record.value().length + " bytes): "
                    + firstLine(e.getMessage()), null, null, requestId);
        }
        if (value == null || !value.isObject()) {
            return new Poison("the value must be a JSON object with owner_id, idempotency_key and request", null,
                    null, requestId);
        }
        JsonNode owner = value.get("owner_id");
        JsonNode key = value.get("idempotency_key");
        String ownerId = owner != null && owner.isTextual() ? owner.asText() : null;
        String keyText = key != null && key.isTextual() ? key.asText() : null;
        if (ownerId == null || ownerId.isEmpty() || ownerId.length() > 255) {
            return new Poison("'owner_id' is missing or not a string of 1 to 255 characters", null, keyText, requestId);
        }
        var unstorableOwner = StorableText.problem(ownerId);
        if (unstorableOwner.isPresent()) {
            return new Poison("'owner_id' " + unstorableOwner.get(), null, keyText, requestId);
        }
        if (keyText == null) {
            return new Poison("'idempotency_key' is missing or not a string", ownerId, null, requestId);
        }
        String keyProblem = IdempotencyKey.problem(keyText).orElse(null);
        if (keyProblem != null) {
            return new Poison(keyProblem, ownerId, keyText, requestId);
        }
        if (record.key() != null && !new String(record.key(), StandardCharsets.UTF_8).equals(ownerId)) {
            return new Poison("the record key must be the owner id ('" + ownerId + "')", ownerId, keyText, requestId);
        }
        JsonNode request = value.get("request");
        if (request == null || !request.isObject()) {
            return new Poison("'request' is missing or not a JSON object", ownerId, keyText, requestId);
        }
        return new Envelope(ownerId, keyText, request, requestId);
    }

    static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int newline = message.indexOf('\n');
        String line = newline < 0 ? message : message.substring(0, newline);
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }
}
