package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the simulated model "said", before it is put into a protocol's success envelope.
 *
 * <p>Produced by {@link AnswerShaper}; consumed by the wire writers: a {@link Structured} answer becomes
 * OpenAI message content (as JSON text), an Anthropic {@code tool_use} input, or (Anthropic structured output,
 * no tool) a {@code text} block holding the JSON text; a {@link Text} becomes OpenAI content verbatim or an
 * Anthropic {@code text} block. A streamed answer carries the same text, in pieces.
 */
sealed interface Completion {

    /** Text the model produced, as the client will see it in the OpenAI content / Anthropic text block. */
    String text();

    /** A JSON answer object (possibly wrong against the schema on purpose). */
    record Structured(JsonNode answer) implements Completion {
        @Override
        public String text() {
            return Json.write(answer);
        }
    }

    /** Free text: prose, or JSON that does not parse. */
    /** Free text; {@code cut}: the call's output limit ran out, and the text stops where it did. */
    record Text(String text, boolean cut) implements Completion {
        Text(String text) {
            this(text, false);
        }
    }
}
