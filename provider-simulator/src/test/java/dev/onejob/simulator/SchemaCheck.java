package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A deliberately small JSON Schema checker for tests: the keywords the test schemas use.
 *
 * <p>Consumes a schema and a value; produces the list of violations (empty = conforms), each naming the
 * JSON path, so a failing assertion says what is wrong.
 */
final class SchemaCheck {

    private SchemaCheck() {
    }

    static List<String> violations(JsonNode schema, JsonNode value) {
        List<String> found = new ArrayList<>();
        check(schema, value, "$", found);
        return found;
    }

    private static void check(JsonNode schema, JsonNode value, String path, List<String> found) {
        if (schema.has("enum") && !contains(schema.get("enum"), value)) {
            found.add(path + ": " + value + " not in enum");
        }
        String type = schema.path("type").asText("");
        switch (type) {
            case "object" -> checkObject(schema, value, path, found);
            case "array" -> checkArray(schema, value, path, found);
            case "string" -> checkString(schema, value, path, found);
            case "integer", "number" -> checkNumber(schema, value, path, found, type);
            case "boolean" -> {
                if (!value.isBoolean()) {
                    found.add(path + ": not a boolean");
                }
            }
            default -> { }
        }
    }

    private static void checkObject(JsonNode schema, JsonNode value, String path, List<String> found) {
        if (!value.isObject()) {
            found.add(path + ": not an object");
            return;
        }
        for (JsonNode required : schema.path("required")) {
            if (!value.has(required.asText())) {
                found.add(path + ": missing required " + required.asText());
            }
        }
        for (Map.Entry<String, JsonNode> field : value.properties()) {
            JsonNode propertySchema = schema.path("properties").get(field.getKey());
            if (propertySchema != null) {
                check(propertySchema, field.getValue(), path + "." + field.getKey(), found);
            } else if (schema.path("additionalProperties").isBoolean()
                    && !schema.get("additionalProperties").asBoolean()) {
                found.add(path + ": extra key " + field.getKey());
            }
        }
    }

    private static void checkArray(JsonNode schema, JsonNode value, String path, List<String> found) {
        if (!value.isArray()) {
            found.add(path + ": not an array");
            return;
        }
        if (value.size() < schema.path("minItems").asInt(0)) {
            found.add(path + ": fewer than minItems");
        }
        for (int i = 0; i < value.size(); i++) {
            check(schema.path("items"), value.get(i), path + "[" + i + "]", found);
        }
    }

    private static void checkString(JsonNode schema, JsonNode value, String path, List<String> found) {
        if (!value.isTextual()) {
            found.add(path + ": not a string");
            return;
        }
        int length = value.asText().length();
        if (length < schema.path("minLength").asInt(0) || length > schema.path("maxLength").asInt(Integer.MAX_VALUE)) {
            found.add(path + ": length " + length + " outside limits");
        }
    }

    private static void checkNumber(JsonNode schema, JsonNode value, String path, List<String> found, String type) {
        if (!value.isNumber() || ("integer".equals(type) && !value.isIntegralNumber())) {
            found.add(path + ": not an " + type);
            return;
        }
        double number = value.asDouble();
        if (number < schema.path("minimum").asDouble(-Double.MAX_VALUE)
                || number > schema.path("maximum").asDouble(Double.MAX_VALUE)
                || (schema.has("exclusiveMinimum") && number <= schema.get("exclusiveMinimum").asDouble())
                || (schema.has("exclusiveMaximum") && number >= schema.get("exclusiveMaximum").asDouble())) {
            found.add(path + ": " + number + " out of range");
        }
    }

    private static boolean contains(JsonNode values, JsonNode value) {
        for (JsonNode candidate : values) {
            if (candidate.equals(value)) {
                return true;
            }
        }
        return false;
    }
}
