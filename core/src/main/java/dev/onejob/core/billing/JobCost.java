package dev.onejob.core.billing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Prompt;
import dev.onejob.core.json.Json;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The most a job can cost, reserved against its owner's spend cap when it is accepted. Every provider of its route
 * (target, then fallbacks) is counted once, at its prices, for a call of at most {@link #inputBound} input tokens and
 * the call's {@code max_tokens} output tokens. Byte-level tokenizers never make more tokens than the text has UTF-8
 * bytes, so the prompt's bytes (system, every message, and the output schema each protocol sends along) plus a fixed
 * allowance for the message framing and for each image ({@link #IMAGE_TOKENS}) bound the input. A provider without
 * prices adds nothing: its calls are not priced at all. Attempts an operator adds beyond the route are not reserved.
 */
public final class JobCost {
    /** Tokens the protocols add around the messages (roles, separators, the tool or schema wrapper). */
    public static final long FRAMING_TOKENS = 256;
    /** Tokens the protocols add around each further message of a conversation (its role and separators). */
    public static final long TURN_FRAMING_TOKENS = 8;
    /**
     * Tokens reserved for each image a call shows: more than any current model bills for one, whatever its size
     * (OpenAI's mini models: 2,833 + 5,667 per 512-pixel tile, at most 8 tiles, so 48,169; Anthropic's: about 1,600),
     * since neither the URL nor the image's bytes bound what a provider counts.
     */
    public static final long IMAGE_TOKENS = 50_000;

    private JobCost() {
    }

    public static long inputBound(Contract contract, JsonNode variables) {
        return inputBound(contract.prompt(variables));
    }

    static long inputBound(Prompt prompt) {
        long bytes = bytes(prompt.system()) + (prompt.structured() ? bytes(Json.write(prompt.outputSchema())) : 0);
        for (Prompt.Turn turn : prompt.turns()) {
            bytes += bytes(turn.text()) + IMAGE_TOKENS * turn.images();
            for (Prompt.ToolCall call : turn.toolCalls()) {
                bytes += bytes(call.name()) + bytes(Json.write(call.arguments()));
            }
        }
        if (prompt.tools() != null) {
            for (Prompt.Tool tool : prompt.tools().list()) {
                bytes += bytes(tool.name()) + bytes(tool.description()) + bytes(Json.write(tool.parameters()));
            }
        }
        bytes += TURN_FRAMING_TOKENS * Math.max(0, prompt.turns().size() - 1);
        for (String stop : prompt.stop()) {
            bytes += bytes(stop);
        }
        return bytes + FRAMING_TOKENS;
    }

    public static BigDecimal bound(Contract contract, JsonNode variables, List<ProviderConfig> route) {
        Prompt prompt = contract.prompt(variables);
        long input = inputBound(prompt);
        BigDecimal total = BigDecimal.ZERO;
        for (ProviderConfig provider : route) {
            if (provider.prices() != null) {
                total = total.add(provider.prices().bound(input, prompt.maxTokens()));
            }
        }
        return total;
    }

    private static long bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
