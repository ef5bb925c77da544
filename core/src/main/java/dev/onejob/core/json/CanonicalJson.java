package dev.onejob.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Canonical JSON for request fingerprints: object keys sorted (by UTF-16 code units, as RFC 8785), no insignificant
 * whitespace, numbers in their shortest plain form (1.0 and 1 are the same number). Two requests that mean the same
 * JSON get the same fingerprint however the client formatted them. A number outside {@link JsonNumbers}' bounds is
 * refused (IllegalArgumentException) rather than spelled out: the canonical form never expands a number without
 * bound, and every boundary checks the bounds first.
 */
public final class CanonicalJson {
    private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

    private CanonicalJson() {
    }

    public static String canonicalize(JsonNode node) {
        return Json.write(normalize(node));
    }

    /** Hex SHA-256 of the canonical form. */
    public static String fingerprint(JsonNode node) {
        return sha256Hex(canonicalize(node));
    }

    public static String sha256Hex(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    private static JsonNode normalize(JsonNode node) {
        if (node.isObject()) {
            List<String> names = new ArrayList<>();
            node.fieldNames().forEachRemaining(names::add);
            names.sort(null);
            ObjectNode sorted = NODES.objectNode();
            for (String name : names) {
                sorted.set(name, normalize(node.get(name)));
            }
            return sorted;
        }
        if (node.isArray()) {
            var array = NODES.arrayNode(node.size());
            node.forEach(item -> array.add(normalize(item)));
            return array;
        }
        if (node.isNumber()) {
            BigDecimal given = node.decimalValue();
            if (Math.abs(JsonNumbers.exponent(given)) > JsonNumbers.MAX_EXPONENT) {
                throw new IllegalArgumentException("a number with a decimal exponent of " + JsonNumbers.exponent(given)
                        + " has no bounded canonical form");
            }
            BigDecimal value = given.stripTrailingZeros();
            if (value.scale() <= 0) {
                return NODES.numberNode(value.toBigIntegerExact());
            }
            return NODES.numberNode(value);
        }
        return node;
    }
}
