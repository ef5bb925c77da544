package dev.onejob.core.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;

/** Reading and writing the fields of wire events; a field that does not read says which and why. */
final class Fields {
    private Fields() {
    }

    static JsonNode object(JsonNode node, String what) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException(what + " must be a JSON object");
        }
        return node;
    }

    static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isEmpty()) {
            throw new IllegalArgumentException("'" + field + "' is missing or not a string");
        }
        return value.asText();
    }

    static String optionalText(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    static UUID uuid(JsonNode node, String field) {
        try {
            return UUID.fromString(text(node, field));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + field + "' is not a UUID");
        }
    }

    static UUID optionalUuid(JsonNode node, String field) {
        String text = optionalText(node, field);
        return text == null ? null : uuid(node, field);
    }

    static long number(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.canConvertToLong() || !value.isIntegralNumber()) {
            throw new IllegalArgumentException("'" + field + "' is missing or not a whole number");
        }
        return value.asLong();
    }

    static Instant instant(JsonNode node, String field) {
        try {
            return Instant.parse(text(node, field));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + field + "' is not an ISO-8601 instant");
        }
    }

    static Instant optionalInstant(JsonNode node, String field) {
        return optionalText(node, field) == null ? null : instant(node, field);
    }

    static void put(ObjectNode node, String field, Object value) {
        if (value == null) {
            node.putNull(field);
        } else {
            node.put(field, value.toString());
        }
    }

    /** An exact decimal (a cost), or null when the field is absent or null; anything but a number is refused. */
    static BigDecimal optionalDecimal(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isNumber()) {
            throw new IllegalArgumentException("'" + field + "' must be a number or null");
        }
        return value.decimalValue();
    }

    /** Writes {@code value} as a JSON number, or null. */
    static void putNumber(ObjectNode node, String field, BigDecimal value) {
        if (value == null) {
            node.putNull(field);
        } else {
            node.put(field, value);
        }
    }
}
