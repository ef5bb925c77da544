package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;

/**
 * The simulator's deterministic stand-in for a tokenizer.
 *
 * <p>Consumes a request (or any text); produces token counts for {@code count_tokens} answers and the
 * {@code usage} blocks. Input tokens = ceil(UTF-8 bytes of (system text, every message text, joined by
 * newlines) + UTF-8 bytes of the compact JSON of {@code tools}, {@code response_format} and
 * {@code output_config} / 4), then {@code round(count * multiplier) + offset}, never below 0. Owns the
 * multiplier/offset adjustment, which a test raises to make a prompt overflow a context window.
 */
final class TokenCounter {

    private record Adjustment(double multiplier, long offset) {
    }

    private volatile Adjustment adjustment;

    TokenCounter(double multiplier, long offset) {
        adjust(multiplier, offset);
    }

    void adjust(double multiplier, long offset) {
        if (!(multiplier >= 0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("token count multiplier must be a finite number >= 0, was " + multiplier);
        }
        adjustment = new Adjustment(multiplier, offset);
    }

    long inputTokens(SimRequest request) {
        long bytes = utf8Length(request.promptText())
                + jsonLength(request.body().get("tools"))
                + jsonLength(request.body().get("response_format"))
                + jsonLength(request.body().get("output_config"));
        Adjustment current = adjustment;
        return Math.max(0, Math.round(ceilQuarter(bytes) * current.multiplier()) + current.offset());
    }

    /** Unadjusted approximation for generated text: ceil(UTF-8 bytes / 4). */
    static long approximate(String text) {
        return ceilQuarter(utf8Length(text));
    }

    private static long ceilQuarter(long bytes) {
        return (bytes + 3) / 4;
    }

    private static long jsonLength(JsonNode node) {
        return node == null || node.isNull() ? 0 : utf8Length(Json.write(node));
    }

    private static long utf8Length(String text) {
        return text == null ? 0 : text.getBytes(StandardCharsets.UTF_8).length;
    }
}
