package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Makes the deterministic answer object for a request from its output JSON Schema and prompt.
 *
 * <p>Consumes a schema (a practical subset: {@code type}, {@code properties}, {@code items}, {@code enum},
 * {@code const}, {@code anyOf}/{@code oneOf}/{@code allOf} (first branch), local {@code $ref} into
 * {@code $defs}/{@code definitions}, {@code minLength}/{@code maxLength}, {@code minimum}/{@code maximum}
 * and their exclusive forms, {@code minItems}/{@code maxItems}); produces a JSON value. Every choice is
 * derived from SHA-256 of the prompt text and the value's path in the answer, so the same request always
 * gets the same answer. Every property is emitted, required or not. A request without a schema gets a JSON string:
 * free text, {@link Prose#answer} (the model's prose, not a JSON object). Owns no state beyond one generation.
 */
record AnswerGenerator(JsonNode root, String seed, String userText, String freeText) {
    private static final int MAX_DEPTH = 12;
    private static final long DEFAULT_SPAN = 100;

    /** The answer for {@code request}: from its schema, or a JSON string of prose when it has none. */
    static JsonNode answer(SimRequest request) {
        return generate(request, null);
    }

    /**
     * Like {@link #answer}, but every free-text string (no enum, no const) is {@code freeText}, cut or
     * padded to the schema's length limits; without a schema, the answer is {@code freeText} itself.
     */
    static JsonNode answerWithFreeText(SimRequest request, String freeText) {
        return generate(request, freeText);
    }

    private static JsonNode generate(SimRequest request, String freeText) {
        if (request.outputSchema() == null) {
            return Json.MAPPER.getNodeFactory().textNode(freeText != null ? freeText : Prose.answer(request.promptText()));
        }
        AnswerGenerator generator =
                new AnswerGenerator(request.outputSchema(), request.promptText(), request.userText(), freeText);
        return generator.value(request.outputSchema(), "$", 0);
    }

    private JsonNode value(JsonNode schema, String path, int depth) {
        JsonNode resolved = resolve(root, schema);
        if (depth > MAX_DEPTH || resolved == null || !resolved.isObject()) {
            return NullNode.getInstance();
        }
        if (resolved.has("const")) {
            return resolved.get("const").deepCopy();
        }
        if (resolved.path("enum").isArray() && !resolved.get("enum").isEmpty()) {
            return chooseEnum((ArrayNode) resolved.get("enum"), path);
        }
        for (String combinator : new String[] {"anyOf", "oneOf", "allOf"}) {
            JsonNode branches = resolved.get(combinator);
            if (branches != null && branches.isArray() && !branches.isEmpty()) {
                return value(firstNonNullBranch(branches), path, depth + 1);
            }
        }
        return switch (typeOf(resolved)) {
            case "object" -> object(resolved, path, depth);
            case "array" -> array(resolved, path, depth);
            case "integer" -> Json.MAPPER.getNodeFactory().numberNode(integer(resolved, path));
            case "number" -> Json.MAPPER.getNodeFactory().numberNode(number(resolved, path));
            case "boolean" -> Json.MAPPER.getNodeFactory().booleanNode((hash(path) & 1) == 0);
            case "null" -> NullNode.getInstance();
            default -> Json.MAPPER.getNodeFactory().textNode(string(resolved, path));
        };
    }

    private ObjectNode object(JsonNode schema, String path, int depth) {
        ObjectNode result = Json.object();
        for (Map.Entry<String, JsonNode> property : schema.path("properties").properties()) {
            result.set(property.getKey(), value(property.getValue(), path + "." + property.getKey(), depth + 1));
        }
        return result;
    }

    private ArrayNode array(JsonNode schema, String path, int depth) {
        int count = Math.max(1, schema.path("minItems").asInt(1));
        if (schema.has("maxItems")) {
            count = Math.min(count, schema.get("maxItems").asInt());
        }
        JsonNode items = schema.has("items") ? schema.get("items") : Json.object().put("type", "string");
        ArrayNode result = Json.MAPPER.createArrayNode();
        for (int i = 0; i < count; i++) {
            result.add(value(items, path + "[" + i + "]", depth + 1));
        }
        return result;
    }

    private JsonNode chooseEnum(ArrayNode values, String path) {
        for (JsonNode candidate : values) {
            if (candidate.isTextual() && appearsAsWord(candidate.asText())) {
                return candidate.deepCopy();
            }
        }
        return values.get((int) Math.floorMod(hash(path), (long) values.size())).deepCopy();
    }

    private boolean appearsAsWord(String word) {
        if (word.isBlank() || userText == null) {
            return false;
        }
        Pattern asWord = Pattern.compile("(?<![\\p{L}\\p{N}_])" + Pattern.quote(word) + "(?![\\p{L}\\p{N}_])",
                Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
        return asWord.matcher(userText).find();
    }

    private String string(JsonNode schema, String path) {
        String digest = HexFormat.of().formatHex(Json.sha256((seed + '\u0000' + path).getBytes(StandardCharsets.UTF_8)));
        String text = freeText != null ? freeText : "sim-" + digest.substring(0, 8);
        int min = schema.path("minLength").asInt(0);
        int max = schema.path("maxLength").asInt(Integer.MAX_VALUE);
        StringBuilder fitted = new StringBuilder(text);
        for (int i = 0; fitted.length() < min; i++) {
            fitted.append(digest.charAt(i % digest.length()));
        }
        return fitted.length() > max ? fitted.substring(0, max) : fitted.toString();
    }

    private long integer(JsonNode schema, String path) {
        long low = schema.has("minimum") ? (long) Math.ceil(schema.get("minimum").asDouble()) : Long.MIN_VALUE;
        if (schema.path("exclusiveMinimum").isNumber()) {
            low = Math.max(low, (long) Math.floor(schema.get("exclusiveMinimum").asDouble()) + 1);
        }
        long high = schema.has("maximum") ? (long) Math.floor(schema.get("maximum").asDouble()) : Long.MAX_VALUE;
        if (schema.path("exclusiveMaximum").isNumber()) {
            high = Math.min(high, (long) Math.ceil(schema.get("exclusiveMaximum").asDouble()) - 1);
        }
        if (low == Long.MIN_VALUE) {
            low = high == Long.MAX_VALUE ? 0 : high - DEFAULT_SPAN;
        }
        if (high == Long.MAX_VALUE || high - low < 0) {
            high = low + DEFAULT_SPAN;
        }
        return low + Math.floorMod(hash(path), high - low + 1);
    }

    private double number(JsonNode schema, String path) {
        double low = schema.path("minimum").asDouble(schema.path("exclusiveMinimum").asDouble(Double.NaN));
        double high = schema.path("maximum").asDouble(schema.path("exclusiveMaximum").asDouble(Double.NaN));
        if (Double.isNaN(low)) {
            low = Double.isNaN(high) ? 0 : high - 1;
        }
        if (Double.isNaN(high) || high < low) {
            high = low + 1;
        }
        // Stay strictly inside the range, so exclusive bounds hold too; two decimals when that still does.
        double value = low + (0.05 + 0.9 * (Math.floorMod(hash(path), 1000L) / 1000.0)) * (high - low);
        double rounded = Math.round(value * 100) / 100.0;
        return rounded > low && rounded < high ? rounded : value;
    }

    private long hash(String path) {
        return ByteBuffer.wrap(Json.sha256((seed + '\u0000' + path).getBytes(StandardCharsets.UTF_8))).getLong();
    }

    /** {@code schema} with its local {@code $ref}s followed within {@code root}; {@code null} when one leads nowhere. */
    static JsonNode resolve(JsonNode root, JsonNode schema) {
        JsonNode current = schema;
        for (int hops = 0; current != null && current.has("$ref") && hops < MAX_DEPTH; hops++) {
            String ref = current.get("$ref").asText();
            current = ref.startsWith("#") && root != null ? root.at(ref.substring(1)) : null;
            if (current != null && current.isMissingNode()) {
                current = null;
            }
        }
        return current;
    }

    /** The branch of an {@code anyOf}/{@code oneOf}/{@code allOf} answers are made from: the first not of type null. */
    static JsonNode firstNonNullBranch(JsonNode branches) {
        for (JsonNode branch : branches) {
            if (!"null".equals(Json.text(branch, "type"))) {
                return branch;
            }
        }
        return branches.get(0);
    }

    private static String typeOf(JsonNode schema) {
        JsonNode type = schema.get("type");
        if (type != null && type.isTextual()) {
            return type.asText();
        }
        if (type != null && type.isArray()) {
            for (JsonNode option : type) {
                if (!"null".equals(option.asText())) {
                    return option.asText();
                }
            }
        }
        if (schema.has("properties")) {
            return "object";
        }
        return schema.has("items") ? "array" : "string";
    }
}
