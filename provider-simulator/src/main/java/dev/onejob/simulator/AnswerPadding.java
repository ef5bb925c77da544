package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Grows an answer without making it wrong: the answer of {@code large_answer} and the too-short answer of
 * {@code paced}.
 *
 * <p>Consumes an answer (a JSON object following the request's schema, or a JSON string of free text), that schema
 * ({@code null} for free text), a seed and a target; produces a copy whose text (the compact JSON of an object, the
 * string itself for free text) is grown by {@link Prose} to the target. An object grows in its first free-text
 * string, depth first in the answer's order: a string whose schema has no {@code enum}, {@code const},
 * {@code pattern} or {@code format} and a {@code maxLength}, if any, that leaves room, found through local
 * {@code $ref}s and the branch of {@code anyOf}/{@code oneOf}/{@code allOf} answers are made from. The padding is
 * ASCII that JSON does not escape, so the text grows by exactly the bytes added. An answer with no such string, or
 * already as long, comes back unchanged: a valid answer matters more than its size. Owns nothing.
 */
final class AnswerPadding {

    private static final int MAX_DEPTH = 32;

    private AnswerPadding() {
    }

    /** {@code answer} grown until its text has {@code sizeBytes} UTF-8 bytes. */
    static JsonNode toSize(JsonNode answer, JsonNode schema, String seed, int sizeBytes) {
        return grow(answer, schema, seed, sizeBytes - text(answer).getBytes(StandardCharsets.UTF_8).length);
    }

    /** {@code answer} grown until its text has at least {@code chars} chars. */
    static JsonNode atLeastChars(JsonNode answer, JsonNode schema, String seed, int chars) {
        return grow(answer, schema, seed, chars - text(answer).length());
    }

    private static JsonNode grow(JsonNode answer, JsonNode schema, String seed, int extra) {
        if (extra <= 0) {
            return answer;
        }
        String padding = extra == 1 ? " " : " " + Prose.ofLength(seed, extra - 1);
        if (answer.isTextual()) {
            return Json.MAPPER.getNodeFactory().textNode(answer.asText() + padding);
        }
        JsonNode grown = answer.deepCopy();
        return padFirst(grown, schema, schema, padding, 0) ? grown : answer;
    }

    private static String text(JsonNode answer) {
        return answer.isTextual() ? answer.asText() : Json.write(answer);
    }

    /** Pads the first free-text string under {@code node} (in place); {@code root == null}: any string will do. */
    private static boolean padFirst(JsonNode node, JsonNode schema, JsonNode root, String padding, int depth) {
        if (depth > MAX_DEPTH) {
            return false;
        }
        JsonNode resolved = root == null ? null : branch(root, schema);
        if (node instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> field : object.properties()) {
                JsonNode declared = resolved == null ? null : resolved.path("properties").get(field.getKey());
                if (root != null && declared == null) {
                    continue;
                }
                if (field.getValue().isTextual()) {
                    if (fits(root, declared, field.getValue().asText(), padding)) {
                        object.put(field.getKey(), field.getValue().asText() + padding);
                        return true;
                    }
                } else if (padFirst(field.getValue(), declared, root, padding, depth + 1)) {
                    return true;
                }
            }
        } else if (node instanceof ArrayNode array) {
            JsonNode items = resolved == null ? null : resolved.get("items");
            if (root != null && (items == null || !items.isObject())) {
                return false;
            }
            for (int i = 0; i < array.size(); i++) {
                if (array.get(i).isTextual()) {
                    if (fits(root, items, array.get(i).asText(), padding)) {
                        array.set(i, array.get(i).asText() + padding);
                        return true;
                    }
                } else if (padFirst(array.get(i), items, root, padding, depth + 1)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether a string of this schema may hold {@code text + padding} and still be valid free text. */
    private static boolean fits(JsonNode root, JsonNode schema, String text, String padding) {
        if (root == null) {
            return true;
        }
        JsonNode resolved = branch(root, schema);
        if (resolved == null || !resolved.isObject()) {
            return false;
        }
        for (String restriction : new String[] {"enum", "const", "pattern", "format"}) {
            if (resolved.has(restriction)) {
                return false;
            }
        }
        if (!allowsString(resolved.get("type"))) {
            return false;
        }
        JsonNode maxLength = resolved.get("maxLength");
        long length = text.codePointCount(0, text.length()) + (long) padding.length();
        return maxLength == null || !maxLength.canConvertToLong() || maxLength.asLong() >= length;
    }

    private static boolean allowsString(JsonNode type) {
        if (type == null || type.isNull()) {
            return true;
        }
        if (type.isTextual()) {
            return "string".equals(type.asText());
        }
        for (JsonNode option : type) {
            if ("string".equals(option.asText())) {
                return true;
            }
        }
        return false;
    }

    /** The schema an answer value was made from: {@code $ref}s followed, combinators down to their branch. */
    private static JsonNode branch(JsonNode root, JsonNode schema) {
        JsonNode current = AnswerGenerator.resolve(root, schema);
        for (int hops = 0; current != null && hops < MAX_DEPTH; hops++) {
            JsonNode branches = null;
            for (String combinator : new String[] {"anyOf", "oneOf", "allOf"}) {
                if (current.path(combinator).isArray() && !current.get(combinator).isEmpty()) {
                    branches = current.get(combinator);
                    break;
                }
            }
            if (branches == null) {
                return current;
            }
            current = AnswerGenerator.resolve(root, AnswerGenerator.firstNonNullBranch(branches));
        }
        return current;
    }
}
