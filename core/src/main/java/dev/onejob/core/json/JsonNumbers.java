package dev.onejob.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Bounds on JSON numbers, checked before anything works with their value. Jackson already caps a number's text at
 * 1000 characters, but not its exponent: the 9 bytes {@code 1e5000000} are a number with five million digits, which
 * the canonical form (for fingerprints) would have to spell out, at seconds of CPU and megabytes per request. A
 * number whose decimal exponent (the position of its first significant digit) is beyond {@link #MAX_EXPONENT} either
 * way is refused; that is past a double's range (about 1e308, subnormals to 1e-324), so no value a job or a model
 * means is refused.
 */
public final class JsonNumbers {
    public static final int MAX_EXPONENT = 400;

    private JsonNumbers() {
    }

    /** The first number in {@code node} outside the bounds, with its JSON path, or empty. Linear in the tree. */
    public static Optional<String> problem(JsonNode node) {
        return problem(node, "$");
    }

    /** The decimal exponent of {@code value}: 0 for 1..9, 2 for 100, -3 for 0.001; 0 for zero. */
    public static long exponent(BigDecimal value) {
        return value.signum() == 0 ? 0 : (long) value.precision() - value.scale() - 1;
    }

    private static Optional<String> problem(JsonNode node, String path) {
        if (node == null) {
            return Optional.empty();
        }
        if (node.isNumber() && !node.isIntegralNumber() || node.isBigInteger()) {
            long exponent = exponent(node.decimalValue());
            if (Math.abs(exponent) > MAX_EXPONENT) {
                return Optional.of(path + " is a number with a decimal exponent of " + exponent + ", outside -"
                        + MAX_EXPONENT + ".." + MAX_EXPONENT);
            }
            return Optional.empty();
        }
        if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                Optional<String> found = problem(field.getValue(), path + "." + field.getKey());
                if (found.isPresent()) {
                    return found;
                }
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                Optional<String> found = problem(node.get(i), path + "[" + i + "]");
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        return Optional.empty();
    }
}
