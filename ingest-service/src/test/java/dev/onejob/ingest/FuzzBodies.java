package dev.onejob.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

/**
 * The bodies of fuzzed requests: a valid body built from the document (its example, its enums, the fixture's
 * ids), hostile text in the free-text variables, then fields replaced by hostile strings and wrong types, removed,
 * nested 10 000 deep, unknown keys added, or the whole body replaced; padded to the limit, past it, to 100 KiB.
 */
record FuzzBodies(ApiDocument document, HostileValues hostile, Random random) {
    byte[] body(ApiDocument.Operation operation, List<String> notes) {
        if (operation.requestBody() == null) {
            int r = random.nextInt(100);
            if (r < 10) {
                notes.add("unexpected body");
                return hostile.body();
            }
            // At most the limit: the JDK server drains 64 KiB of a body no handler reads and then resets the
            // connection, which can cut a large answer (GET /metrics) short: a transport limit, not the API's.
            return r < 15 ? FuzzText.pad("{}".getBytes(StandardCharsets.UTF_8), ApiFuzzer.BODY_LIMIT) : null;
        }
        byte[] body;
        int r = random.nextInt(100);
        if (r < 12) {
            notes.add("hostile body");
            body = hostile.body();
        } else {
            JsonNode tree = operation.requestExample() != null && random.nextInt(4) > 0
                    ? operation.requestExample().deepCopy() : valid(operation.requestBody(), "");
            List<String> raws = new ArrayList<>();
            if (tree.path("variables").isObject() && random.nextInt(100) < 40) {
                // the variables are the caller's free text: hostile text there is valid and must be kept exactly
                String text = hostile.string();
                ((ObjectNode) tree.path("variables")).put("text", text);
                notes.add("variables.text := " + FuzzText.abbreviate(text));
            }
            int mutations = r < 45 ? 0 : r < 80 ? 1 : 2 + random.nextInt(2);
            for (int i = 0; i < mutations; i++) {
                mutate(tree, raws, notes);
            }
            body = FuzzText.serialize(tree, raws);
        }
        int size = random.nextInt(100);
        if (size < 5) {
            notes.add("padded to the limit + 1");
            return FuzzText.pad(body, ApiFuzzer.BODY_LIMIT + 1);
        }
        if (size < 9) {
            notes.add("padded to the limit");
            return FuzzText.pad(body, ApiFuzzer.BODY_LIMIT);
        }
        if (size < 13) {
            notes.add("padded to 100 KiB");
            return FuzzText.pad(body, 100 * 1024);
        }
        return body;
    }

    /** A valid value for {@code schema}: the document's example, an enum value, or the fixture's ids. */
    private JsonNode valid(JsonNode schemaOrRef, String name) {
        JsonNode schema = document.resolve(schemaOrRef);
        JsonNodeFactory f = JsonNodeFactory.instance;
        if (schema.has("example")) {
            return schema.get("example").deepCopy();
        }
        if (schema.has("enum")) {
            return hostile.pick(List.copyOf(toList(schema.get("enum")))).deepCopy();
        }
        switch (schema.path("type").asText("object")) {
            case "object" -> {
                ObjectNode object = f.objectNode();
                List<JsonNode> required = toList(schema.path("required"));
                for (Iterator<String> it = schema.path("properties").fieldNames(); it.hasNext(); ) {
                    String property = it.next();
                    if (required.stream().anyMatch(r -> r.asText().equals(property)) || random.nextBoolean()) {
                        object.set(property, valid(schema.path("properties").get(property), property));
                    }
                }
                return object;
            }
            case "boolean" -> {
                return f.booleanNode(random.nextBoolean());
            }
            case "array" -> {
                return f.arrayNode().add(valid(schema.path("items"), name));
            }
            default -> {
                return f.textNode(switch (name) {
                    case "provider", "target" -> hostile.pick(FuzzTargets.PROVIDERS);
                    case "contract" -> hostile.pick(FuzzTargets.CONTRACTS);
                    default -> "fuzz " + name;
                });
            }
        }
    }

    private void mutate(JsonNode tree, List<String> raws, List<String> notes) {
        List<FuzzText.Slot> slots = FuzzText.slots(tree);
        int kind = random.nextInt(10);
        if (slots.isEmpty() || kind < 2) {
            if (tree.isObject()) {
                String key = hostile.key();
                ((ObjectNode) tree).set(key, hostile.value());
                notes.add("unknown key " + FuzzText.abbreviate(key));
            }
            return;
        }
        FuzzText.Slot slot = hostile.pick(slots);
        if (kind < 4) {
            slot.remove();
            notes.add("removed " + slot.name());
        } else if (kind < 5) {
            raws.add(hostile.rawValue());
            slot.set(JsonNodeFactory.instance.textNode(FuzzText.placeholder(raws.size() - 1)));
            notes.add(slot.name() + " nested 10 000 deep");
        } else {
            JsonNode value = random.nextBoolean() ? JsonNodeFactory.instance.textNode(hostile.string())
                    : hostile.value();
            slot.set(value);
            notes.add(slot.name() + " := " + FuzzText.abbreviate(value.toString()));
        }
    }

    private static List<JsonNode> toList(JsonNode array) {
        List<JsonNode> list = new ArrayList<>();
        array.forEach(list::add);
        return list;
    }
}
