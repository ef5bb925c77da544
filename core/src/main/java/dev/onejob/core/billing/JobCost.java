package dev.onejob.core.billing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.json.Json;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The most a job can cost, reserved against its owner's spend cap when it is accepted. Every provider of its route
 * (target, then fallbacks) is counted once, at its prices, for a call of at most {@link #inputBound} input tokens and
 * the contract's {@code max_tokens} output tokens. Byte-level tokenizers never make more tokens than the text has
 * UTF-8 bytes, so the prompt's bytes (system, user, and the output schema each protocol sends along) plus a fixed
 * allowance for the message framing bound the input. A provider without prices adds nothing: its calls are not
 * priced at all. Attempts an operator adds beyond the route are not reserved.
 */
public final class JobCost {
    /** Tokens the protocols add around the messages (roles, separators, the tool or schema wrapper). */
    public static final long FRAMING_TOKENS = 256;

    private JobCost() {
    }

    public static long inputBound(Contract contract, JsonNode variables) {
        return bytes(contract.system().render(variables)) + bytes(contract.user().render(variables))
                + bytes(Json.write(contract.outputSchema())) + FRAMING_TOKENS;
    }

    public static BigDecimal bound(Contract contract, JsonNode variables, List<ProviderConfig> route) {
        long input = inputBound(contract, variables);
        BigDecimal total = BigDecimal.ZERO;
        for (ProviderConfig provider : route) {
            if (provider.prices() != null) {
                total = total.add(provider.prices().bound(input, contract.maxTokens()));
            }
        }
        return total;
    }

    private static long bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
