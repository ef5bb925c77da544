package dev.onejob.core.billing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;

/**
 * The tokens one provider call was billed for, as the provider's reply reported them. {@code inputTokens} counts the
 * whole prompt, cached part included (OpenAI's {@code prompt_tokens}; Anthropic's {@code input_tokens} plus its
 * cache reads and writes); {@code cachedInputTokens} is the part read from the provider's prompt cache, billed at the
 * cached price.
 */
public record Usage(long inputTokens, long outputTokens, long cachedInputTokens) {

    /** Refuses counts no provider reports: negative, or more cached tokens than input tokens. */
    public Usage {
        if (inputTokens < 0 || outputTokens < 0 || cachedInputTokens < 0) {
            throw new IllegalArgumentException("token counts must not be negative");
        }
        if (cachedInputTokens > inputTokens) {
            throw new IllegalArgumentException("cached_input_tokens (" + cachedInputTokens
                    + ") must not exceed input_tokens (" + inputTokens + ")");
        }
    }

    public ObjectNode toJson() {
        return Json.object().put("input_tokens", inputTokens).put("output_tokens", outputTokens)
                .put("cached_input_tokens", cachedInputTokens);
    }

    /** Reads a {@code usage} object of an event; {@code null} or JSON null reads as null. */
    public static Usage fromJson(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("'usage' must be an object or null");
        }
        return new Usage(count(node, "input_tokens"), count(node, "output_tokens"),
                count(node, "cached_input_tokens"));
    }

    private static long count(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new IllegalArgumentException("'usage." + field + "' is missing or not a whole number");
        }
        return value.asLong();
    }
}
