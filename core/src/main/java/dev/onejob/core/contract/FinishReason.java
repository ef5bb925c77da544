package dev.onejob.core.contract;

import java.util.Locale;
import java.util.Map;

/**
 * Why a provider stopped writing an answer, in one neutral form whichever wire protocol it speaks. Read from the
 * provider's reply by the adapters in {@code providers}, carried on {@code attempt-completions} (version 5), stored on
 * the attempt ({@code attempts.finish_reason}) and answered by the drop-in endpoints in the caller's format.
 */
public enum FinishReason {
    /** A natural end: OpenAI {@code stop}, Anthropic {@code end_turn}. */
    STOP,
    /** One of the call's stop sequences: Anthropic {@code stop_sequence}; OpenAI reports it as {@code stop}. */
    STOP_SEQUENCE,
    /** The call's output limit ran out, the answer is cut: OpenAI {@code length}, Anthropic {@code max_tokens}. */
    LENGTH,
    /** The answer calls tools: OpenAI {@code tool_calls}, Anthropic {@code tool_use}. */
    TOOL_CALLS,
    /** The provider withheld or cut the answer: OpenAI {@code content_filter}, Anthropic {@code refusal}. */
    CONTENT_FILTER;

    private static final Map<String, FinishReason> OPENAI = Map.of("stop", STOP, "length", LENGTH,
            "tool_calls", TOOL_CALLS, "function_call", TOOL_CALLS, "content_filter", CONTENT_FILTER);
    private static final Map<String, FinishReason> ANTHROPIC = Map.of("end_turn", STOP,
            "stop_sequence", STOP_SEQUENCE, "max_tokens", LENGTH, "model_context_window_exceeded", LENGTH,
            "tool_use", TOOL_CALLS, "refusal", CONTENT_FILTER);

    /** The value stored and carried on events: {@code stop}, {@code length}, ... */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The reason a stored or carried value names; null for null. */
    public static FinishReason fromWire(String value) {
        return value == null ? null : valueOf(value.toUpperCase(Locale.ROOT));
    }

    /** An OpenAI {@code finish_reason}; null for one onejob does not map (or none). */
    public static FinishReason fromOpenAi(String reason) {
        return reason == null ? null : OPENAI.get(reason);
    }

    /** An Anthropic {@code stop_reason}; null for one onejob does not map (or none). */
    public static FinishReason fromAnthropic(String reason) {
        return reason == null ? null : ANTHROPIC.get(reason);
    }

    /** As OpenAI writes it; a reason not known is answered as {@code stop}. */
    public static String toOpenAi(FinishReason reason) {
        if (reason == null) {
            return "stop";
        }
        return switch (reason) {
            case STOP, STOP_SEQUENCE -> "stop";
            case LENGTH -> "length";
            case TOOL_CALLS -> "tool_calls";
            case CONTENT_FILTER -> "content_filter";
        };
    }

    /** As Anthropic writes it; a reason not known is answered as {@code end_turn}. */
    public static String toAnthropic(FinishReason reason) {
        if (reason == null) {
            return "end_turn";
        }
        return switch (reason) {
            case STOP -> "end_turn";
            case STOP_SEQUENCE -> "stop_sequence";
            case LENGTH -> "max_tokens";
            case TOOL_CALLS -> "tool_use";
            case CONTENT_FILTER -> "refusal";
        };
    }
}
