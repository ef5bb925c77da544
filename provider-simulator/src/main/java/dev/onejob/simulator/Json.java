package dev.onejob.simulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Shared JSON and hashing helpers of the simulator.
 *
 * <p>Consumes bytes and strings; produces Jackson trees, compact JSON text and SHA-256 hex digests.
 * Owns the one {@link ObjectMapper} the module uses (thread-safe once configured).
 */
final class Json {

    /** Writes a cost as {@code 0.0000001500}, never {@code 1.500E-7}: billing exports are read by people too. */
    static final ObjectMapper MAPPER = JsonMapper.builder().enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN).build();

    private Json() {
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** Parses JSON text; throws {@link IOException} with Jackson's message when it is not JSON. */
    static JsonNode parse(byte[] body) throws IOException {
        JsonNode node = MAPPER.readTree(body);
        if (node == null || node.isMissingNode()) {
            throw new IOException("empty body");
        }
        return node;
    }

    static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The JSON text as UTF-8. An unpaired surrogate (a {@code poison_answer}) has no UTF-8 form: it is sent as the
     * JSON escape {@code \\uXXXX}, as a real server's JSON writer would, instead of the '?' a plain encode makes of it.
     * Such a char can only be inside a string, where the escape means it.
     */
    static byte[] bytes(JsonNode node) {
        return wireText(node).getBytes(StandardCharsets.UTF_8);
    }

    /** The compact JSON text, every unpaired surrogate written as its {@code \\uXXXX} escape (see {@link #bytes}). */
    static String wireText(JsonNode node) {
        String text = write(node);
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean paired = Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1));
            if (paired) {
                if (out != null) {
                    out.append(c).append(text.charAt(i + 1));
                }
                i++;
            } else if (Character.isSurrogate(c)) {
                if (out == null) {
                    out = new StringBuilder(text.length() + 16).append(text, 0, i);
                }
                out.append(String.format("\\u%04x", (int) c));
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? text : out.toString();
    }

    static String sha256Hex(byte[] bytes) {
        return HexFormat.of().formatHex(sha256(bytes));
    }

    static String sha256Hex(String text) {
        return sha256Hex(text.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK ships SHA-256", e);
        }
    }

    /** A text field of {@code node}, or {@code null} when absent, null or not text. */
    static String text(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value != null && value.isTextual() ? value.asText() : null;
    }

    /** An integral field of {@code node}, or {@code null} when absent or null. */
    static Long longOrNull(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asLong();
    }

    /**
     * A US-dollar cost field, or {@code null} when absent or null. Read from the number's text, so a reader that
     * parsed it as a double loses nothing a cost of {@link Price#COST_SCALE} places can hold; widened to that
     * scale (never rounded), so a cost reads back equal to the one written.
     */
    static BigDecimal costOrNull(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isNumber()) {
            throw new IllegalArgumentException("'" + field + "' must be a number, was " + value);
        }
        BigDecimal cost = value.isBigDecimal() ? value.decimalValue() : new BigDecimal(value.asText());
        return cost.scale() < Price.COST_SCALE ? cost.setScale(Price.COST_SCALE) : cost;
    }
}
