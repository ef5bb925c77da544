package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One accepted protocol request, reduced to what answers are made from. Holds no header values except
 * the idempotency key, so never an API key.
 *
 * <p>Produced by the wire readers ({@link OpenAiChatWire}, {@link AnthropicWire}); consumed by the
 * answer generator, the token counter and any custom answer function given in {@link SimulatorConfig}.
 * Treat {@link #body()} and {@link #outputSchema()} as read-only.
 *
 * @param protocol       which wire protocol the request came in on
 * @param model          the request's {@code model}
 * @param idempotencyKey the {@code Idempotency-Key} header, or {@code null}
 * @param systemText     system instructions (OpenAI system/developer messages, Anthropic {@code system}), joined
 * @param userText       text of the user messages, joined with newlines: what enum words are looked up in
 * @param promptText     system text plus every message text, joined: what answers are seeded from
 * @param outputSchema   the JSON Schema the answer must follow, or {@code null} when the request has none
 * @param toolName       Anthropic: the tool the answer is a {@code tool_use} of, else {@code null}
 * @param body           the parsed request body
 * @param bodySha256     hex SHA-256 of the raw request body
 */
public record SimRequest(
        Protocol protocol,
        String model,
        String idempotencyKey,
        String systemText,
        String userText,
        String promptText,
        JsonNode outputSchema,
        String toolName,
        JsonNode body,
        String bodySha256) {

    /** Whether the request asks for a streamed answer: its body has {@code "stream": true}. */
    public boolean streamed() {
        JsonNode stream = body == null ? null : body.get("stream");
        return stream != null && stream.isBoolean() && stream.booleanValue();
    }
}
