package dev.onejob.core.json;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A caller's or a contract's JSON Schema that onejob will not compile: it reaches outside itself (a remote
 * {@code $ref}, an {@code $id}, another {@code $schema}), is too large, or has a pattern that cannot run in linear
 * time. The message names the JSON pointer inside the schema and the offending value, and is meant for the caller.
 */
public final class SchemaRefusedException extends IllegalArgumentException {
    private static final int MAX_VALUE_SHOWN = 200;

    private final String pointer;

    SchemaRefusedException(String pointer, String message) {
        super(message);
        this.pointer = pointer;
    }

    /** Refuses {@code value} (a string or a {@link JsonNode}) found at {@code pointer}, saying why. */
    static SchemaRefusedException at(String pointer, Object value, String why) {
        return new SchemaRefusedException(pointer, shown(pointer) + " is " + quoted(value) + ": " + why);
    }

    /** The JSON pointer (RFC 6901) of the refused value inside the schema; "" is the schema itself. */
    public String pointer() {
        return pointer;
    }

    static String shown(String pointer) {
        return pointer.isEmpty() ? "the top level" : pointer;
    }

    private static String quoted(Object value) {
        String text = value instanceof JsonNode node ? Json.write(node)
                : Json.write(Json.MAPPER.getNodeFactory().textNode(String.valueOf(value)));
        return text.length() <= MAX_VALUE_SHOWN ? text : text.substring(0, MAX_VALUE_SHOWN) + "...";
    }
}
