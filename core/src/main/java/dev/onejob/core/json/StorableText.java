package dev.onejob.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Text PostgreSQL can store as it was sent: no U+0000 (neither {@code text} nor {@code jsonb} holds it) and no
 * unpaired surrogate (not a Unicode character; it would be stored as something else). Checked before any SQL runs,
 * so such input is refused with a reason instead of failing in the database.
 */
public final class StorableText {
    private StorableText() {
    }

    /** Why {@code text} cannot be stored as sent, or empty. */
    public static Optional<String> problem(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0) {
                return Optional.of("contains U+0000, which cannot be stored");
            }
            if (Character.isHighSurrogate(c) && (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1)))
                    || Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1)))) {
                return Optional.of("contains an unpaired surrogate (U+" + Integer.toHexString(c).toUpperCase()
                        + "), which is not a Unicode character");
            }
        }
        return Optional.empty();
    }

    /**
     * {@code text} with every U+0000 and every unpaired surrogate written as a {@code \\uXXXX} escape, so it can be
     * stored and shown. Applied to JSON text (an answer as the provider sent it), the result is JSON text that parses
     * back to the same value: those characters are only ever inside strings, where the escape means them.
     */
    public static String escape(String text) {
        if (problem(text).isEmpty()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean pairedHigh = Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1));
            if (pairedHigh) {
                out.append(c).append(text.charAt(++i));
            } else if (c == 0 || Character.isSurrogate(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The first string or field name in {@code node} that cannot be stored, with its JSON path, or empty. */
    public static Optional<String> problem(JsonNode node) {
        return problem(node, "$");
    }

    private static Optional<String> problem(JsonNode node, String path) {
        if (node == null) {
            return Optional.empty();
        }
        if (node.isTextual()) {
            return problem(node.asText()).map(reason -> path + " " + reason);
        }
        if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                Optional<String> name = problem(field.getKey());
                if (name.isPresent()) {
                    return Optional.of(path + " has a field name that " + name.get());
                }
                Optional<String> value = problem(field.getValue(), path + "." + field.getKey());
                if (value.isPresent()) {
                    return value;
                }
            }
        }
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                Optional<String> item = problem(node.get(i), path + "[" + i + "]");
                if (item.isPresent()) {
                    return item;
                }
            }
        }
        return Optional.empty();
    }
}
