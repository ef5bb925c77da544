package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;

/**
 * One server-sent event of a streamed answer, framed as the providers frame theirs: an {@code event: NAME} line
 * (Anthropic names every event; OpenAI names none), one {@code data: ...} line, then a blank line.
 *
 * <p>Produced by {@link OpenAiChatStream} and {@link AnthropicMessageStream}; written by {@link EventStream}.
 * Owns nothing: an immutable value. {@code data} is one line: compact JSON never holds a raw newline.
 *
 * @param name  the event name, or {@code null} for none
 * @param data  the data line's text: compact JSON, or OpenAI's {@code [DONE]}
 * @param piece whether the event carries a piece of the answer's text (what a {@code paced} stream spaces out)
 */
record SseEvent(String name, String data, boolean piece) {

    /** OpenAI's last event of a stream. */
    static final SseEvent DONE = new SseEvent(null, "[DONE]");

    SseEvent(String name, String data) {
        this(name, data, false);
    }

    /** An unnamed event (OpenAI) carrying {@code data} as JSON. */
    static SseEvent json(JsonNode data) {
        return json(null, data);
    }

    /** An event carrying {@code data} as JSON; unpaired surrogates as escapes, as in a non-streamed answer. */
    static SseEvent json(String name, JsonNode data) {
        return new SseEvent(name, Json.wireText(data));
    }

    /** This event, marked as carrying a piece of the answer's text. */
    SseEvent asPiece() {
        return new SseEvent(name, data, true);
    }

    /** The event as sent, UTF-8. */
    byte[] bytes() {
        String frame = (name == null ? "" : "event: " + name + "\n") + "data: " + data + "\n\n";
        return frame.getBytes(StandardCharsets.UTF_8);
    }
}
