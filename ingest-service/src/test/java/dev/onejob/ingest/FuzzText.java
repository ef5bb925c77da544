package dev.onejob.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.onejob.core.json.Json;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/** The byte- and text-level helpers of the fuzzer: encoding, padding, chunking, raw JSON, readable abbreviations. */
final class FuzzText {
    private FuzzText() {
    }

    /** A place in a JSON tree that holds a value: an object member or an array element. */
    record Slot(JsonNode parent, String field, int index, String name) {
        void set(JsonNode value) {
            if (parent instanceof ObjectNode object) {
                object.set(field, value);
            } else {
                ((ArrayNode) parent).set(index, value);
            }
        }

        void remove() {
            if (parent instanceof ObjectNode object) {
                object.remove(field);
            } else {
                ((ArrayNode) parent).remove(index);
            }
        }
    }

    static List<Slot> slots(JsonNode tree) {
        List<Slot> slots = new ArrayList<>();
        collect(tree, "", slots);
        return slots;
    }

    private static void collect(JsonNode node, String path, List<Slot> slots) {
        if (node instanceof ObjectNode object) {
            for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
                String field = it.next();
                slots.add(new Slot(object, field, -1, path + field));
                collect(object.get(field), path + field + ".", slots);
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                slots.add(new Slot(array, null, i, path + "[" + i + "]"));
                collect(array.get(i), path + "[" + i + "].", slots);
            }
        }
    }

    static String placeholder(int index) {
        return "@@raw-json-" + index + "@@";
    }

    /** The tree as JSON, each placeholder string replaced by its raw JSON text. */
    static byte[] serialize(JsonNode tree, List<String> raws) {
        String text = Json.write(tree);
        for (int i = 0; i < raws.size(); i++) {
            text = text.replace("\"" + placeholder(i) + "\"", raws.get(i));
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code body} followed by spaces up to {@code size} bytes (JSON that was valid stays valid). */
    static byte[] pad(byte[] body, int size) {
        byte[] padded = Arrays.copyOf(body, Math.max(size, body.length));
        Arrays.fill(padded, body.length, padded.length, (byte) ' ');
        return padded;
    }

    static byte[] chunk(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < body.length; i += 8192) {
            int n = Math.min(8192, body.length - i);
            out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, i, n);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    /** Percent-encodes every byte but the unreserved characters, so any string is a valid path segment or query. */
    static String encode(String value) {
        StringBuilder encoded = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xFF);
            if (c < 0x80 && (Character.isLetterOrDigit(c) || "-._~".indexOf(c) >= 0)) {
                encoded.append(c);
            } else {
                encoded.append('%').append(String.format("%02X", b & 0xFF));
            }
        }
        return encoded.toString();
    }

    /** A header value cannot hold a line break (it would end the header); everything else goes through. */
    static String headerSafe(String value) {
        return value.replace('\r', ' ').replace('\n', ' ');
    }

    /** The value as an HTTP server sees it: leading and trailing spaces and tabs are padding (RFC 9110 5.5). */
    static String withoutPadding(String value) {
        int start = 0;
        int end = value.length();
        while (start < end && (value.charAt(start) == ' ' || value.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
            end--;
        }
        return value.substring(start, end);
    }

    /**
     * An operator's certification request that would really run (a known provider and contract, or "all") is
     * pointed at an unknown contract: a real run would record a failed certification and withdraw the fixture's
     * pass for backup, which other tests in this JVM rely on. Everything else is sent as generated.
     */
    static byte[] neverCertify(byte[] body, List<String> notes) {
        JsonNode node = ApiFuzzer.parseOrNull(body);
        if (!(node instanceof ObjectNode object)) {
            return body;
        }
        Optional<String> provider = text(object, "provider");
        Optional<String> contract = text(object, "contract");
        boolean all = object.path("all").asBoolean(false);
        boolean known = provider.map(FuzzTargets.PROVIDERS::contains).orElse(true)
                && contract.map(FuzzTargets.CONTRACTS::contains).orElse(true);
        if (!known || !(all || provider.isPresent() && contract.isPresent())) {
            return body;
        }
        object.put("contract", "no-such-contract");
        notes.add("contract made unknown (a real certification run would withdraw the fixture's)");
        return Json.write(object).getBytes(StandardCharsets.UTF_8);
    }

    private static Optional<String> text(JsonNode body, String field) {
        JsonNode value = body.get(field);
        return value != null && value.isTextual() && !value.asText().isBlank() ? Optional.of(value.asText())
                : Optional.empty();
    }

    static String abbreviate(String text) {
        String escaped = Json.write(TextNode.valueOf(text));
        return escaped.length() <= 160 ? escaped
                : escaped.substring(0, 120) + "...(" + text.length() + " chars)..." + escaped.substring(
                escaped.length() - 20);
    }

    static String abbreviate(byte[] body) {
        if (body == null) {
            return "none";
        }
        return abbreviate(new String(body, StandardCharsets.UTF_8)) + " (" + body.length + " bytes)";
    }
}
