package dev.onejob.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a caller's or a contract's JSON Schema must be before it is compiled: one self-contained draft 2020-12
 * document of bounded size. Consumes the schema's JSON; produces nothing, or a {@link SchemaRefusedException} naming
 * the JSON pointer and the value. It walks the document by schema position ({@code properties}, {@code items},
 * {@code allOf}, {@code $defs}, ...), so a property <em>named</em> {@code $ref} is a name, not a reference, and it
 * refuses:
 * <ul>
 * <li>a {@code $ref}, {@code $dynamicRef} or {@code $recursiveRef} that is not a fragment ({@code #...}) naming a
 * schema or an anchor inside the document, and one that makes a schema apply itself to the same value forever;
 * <li>any {@code $id} (it moves the base references resolve against), and a {@code $schema} other than draft 2020-12;
 * <li>a {@code pattern} or a {@code patternProperties} name that RE2 cannot run in linear time;
 * <li>a document past {@link #MAX_BYTES}, {@link #MAX_NODES}, {@link #MAX_DEPTH} or {@link #MAX_PATTERNS_SIZE}.
 * </ul>
 * The references and anchors are kept, resolved and checked for endless loops by {@link SchemaReferences}.
 */
final class UntrustedSchemaCheck {
    /**
     * The largest schema, as JSON. A schema is compiled on every submission and on every attempt, and is sent to
     * the provider with every call; generous for a structured answer, small next to what an attacker would want.
     */
    static final int MAX_BYTES = 64 * 1024;
    /**
     * The most JSON values in a schema (objects, arrays, strings, numbers, ..., every key's value counted), which
     * bounds the validators compiled for it and the work of checking it, whatever the byte count.
     */
    static final int MAX_NODES = 2_000;
    /**
     * The deepest nesting of schemas inside schemas (a property's schema is one deeper than its object's). Compiling
     * and validating recurse once per level, so this bounds the stack a schema can take.
     */
    static final int MAX_DEPTH = 32;
    /**
     * The most instructions all of a schema's patterns may expand to together (see
     * {@link LinearRegex#MAX_PATTERN_SIZE} for one): the memory they are compiled into and the time they take on an
     * answer grow with it.
     */
    static final int MAX_PATTERNS_SIZE = 20_000;
    static final String DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

    private static final Set<String> ONE_SCHEMA = Set.of("additionalProperties", "propertyNames", "items",
            "additionalItems", "contains", "not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties",
            "contentSchema");
    private static final Set<String> SCHEMA_LISTS = Set.of("allOf", "anyOf", "oneOf", "prefixItems", "items");
    private static final Set<String> SCHEMA_MAPS = Set.of("properties", "patternProperties", "$defs", "definitions",
            "dependentSchemas", "dependencies");
    /** The keywords whose schemas apply to the same value as their own (the others descend into its parts). */
    private static final Set<String> IN_PLACE = Set.of("allOf", "anyOf", "oneOf", "not", "if", "then", "else",
            "dependentSchemas", "dependencies");

    private final SchemaReferences references = new SchemaReferences();
    private long patternsSize;

    private UntrustedSchemaCheck() {
    }

    /** @throws SchemaRefusedException naming the pointer and the value, at the first thing refused */
    static void check(JsonNode schema) {
        if (schema == null || !(schema.isObject() || schema.isBoolean())) {
            throw new SchemaRefusedException("", "a JSON Schema is an object (or true or false), not "
                    + (schema == null ? "nothing" : schema.getNodeType().toString().toLowerCase()));
        }
        countNodes(schema);
        int bytes = Json.write(schema).getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            throw new SchemaRefusedException("", "the schema is " + bytes + " bytes of JSON, more than the bound of "
                    + MAX_BYTES + " bytes (64 KiB) for a schema");
        }
        UntrustedSchemaCheck walk = new UntrustedSchemaCheck();
        walk.schema(schema, "", 0);
        walk.references.resolve();
        walk.references.refuseEndlessLoops();
    }

    private static void countNodes(JsonNode schema) {
        Deque<JsonNode> pending = new ArrayDeque<>(List.of(schema));
        int count = 0;
        while (!pending.isEmpty()) {
            JsonNode node = pending.pop();
            if (++count > MAX_NODES) {
                throw new SchemaRefusedException("", "the schema has more than " + MAX_NODES + " JSON values (every "
                        + "object, array, string, number and boolean in it), the bound for a schema");
            }
            node.elements().forEachRemaining(pending::push);
        }
    }

    private void schema(JsonNode node, String pointer, int depth) {
        if (depth > MAX_DEPTH) {
            throw new SchemaRefusedException(pointer, pointer + ": schemas are nested more than " + MAX_DEPTH
                    + " deep, the bound for a schema");
        }
        references.schema(pointer);
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            String keyword = field.getKey();
            String at = pointer + "/" + escape(keyword);
            keyword(keyword, field.getValue(), pointer, at);
            for (Map.Entry<String, JsonNode> child : subschemas(keyword, field.getValue(), at).entrySet()) {
                if (IN_PLACE.contains(keyword)) {
                    references.inPlace(pointer, child.getKey());
                }
                schema(child.getValue(), child.getKey(), depth + 1);
            }
        }
    }

    private void keyword(String keyword, JsonNode value, String holder, String at) {
        switch (keyword) {
            case "$ref", "$dynamicRef", "$recursiveRef" -> references.reference(keyword, value, holder, at);
            case "$id" -> throw SchemaRefusedException.at(at, value, "$id moves the base "
                    + "that references resolve against; a schema here is one document without $id, whose parts "
                    + "are referred to as \"#/$defs/name\"");
            case "$schema" -> {
                if (!value.isTextual() || !(value.textValue().equals(DRAFT_2020_12)
                        || value.textValue().equals(DRAFT_2020_12 + "#"))) {
                    throw SchemaRefusedException.at(at, value, "the only $schema allowed is \"" + DRAFT_2020_12
                            + "\" (or none)");
                }
            }
            case "$anchor", "$dynamicAnchor" -> references.anchor(value, holder, at);
            case "pattern" -> {
                if (value.isTextual()) {
                    pattern(value.textValue(), at);
                }
            }
            case "patternProperties" -> value.fieldNames().forEachRemaining(name -> pattern(name, at + "/"
                    + escape(name)));
            default -> {
            }
        }
    }

    /** The schemas directly under a keyword, by pointer: maps' values, lists' items, or the one schema. */
    private static Map<String, JsonNode> subschemas(String keyword, JsonNode value, String at) {
        Map<String, JsonNode> found = new LinkedHashMap<>();
        if (SCHEMA_MAPS.contains(keyword) && value.isObject()) {
            value.fields().forEachRemaining(e -> {
                if (isSchema(e.getValue())) {
                    found.put(at + "/" + escape(e.getKey()), e.getValue());
                }
            });
        } else if (SCHEMA_LISTS.contains(keyword) && value.isArray()) {
            for (int i = 0; i < value.size(); i++) {
                if (isSchema(value.get(i))) {
                    found.put(at + "/" + i, value.get(i));
                }
            }
        } else if (ONE_SCHEMA.contains(keyword) && isSchema(value)) {
            found.put(at, value);
        }
        return found;
    }

    private static boolean isSchema(JsonNode node) {
        return node.isObject() || node.isBoolean();
    }

    private void pattern(String regex, String at) {
        try {
            LinearRegex.compile(regex);
        } catch (IllegalArgumentException e) {
            throw SchemaRefusedException.at(at, regex, e.getMessage());
        }
        patternsSize += LinearRegex.expandedSize(LinearRegex.translateUnicodeEscapes(regex));
        if (patternsSize > MAX_PATTERNS_SIZE) {
            throw SchemaRefusedException.at(at, regex, "the schema's patterns together expand to more than "
                    + MAX_PATTERNS_SIZE + " instructions, the bound for a schema");
        }
    }

    private static String escape(String name) {
        return name.replace("~", "~0").replace("/", "~1");
    }
}
