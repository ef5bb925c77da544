package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A {@code chat.completion} answer as the events of OpenAI's streamed answer ({@code "stream": true}).
 *
 * <p>Consumes the request and the non-streamed answer {@link OpenAiChatWire#success} made for it; produces, as
 * unnamed {@code data:} events, {@code chat.completion.chunk} objects that share the answer's {@code id},
 * {@code created} and {@code model}, each with one choice {@code {"index":0,"delta":...,"logprobs":null,
 * "finish_reason":...}}: first {@code delta {"role":"assistant","content":"","refusal":null}}, then one
 * {@code {"content":PIECE}} per piece of the content (cut by {@link TextPieces#split}, or as the caller says), then {@code {}} with the answer's
 * {@code finish_reason}. With {@code "stream_options":{"include_usage":true}} every one of those carries
 * {@code "usage":null} and one more chunk follows with {@code "choices":[]} and the answer's {@code usage}; without
 * it no chunk has a {@code usage} key. Last comes {@code data: [DONE]}. So the pieces join to exactly the content,
 * and the usage is exactly the one the non-streamed answer reports (and the ledger bills). Owns nothing.
 */
final class OpenAiChatStream {

    private OpenAiChatStream() {
    }

    static List<SseEvent> events(SimRequest request, JsonNode success, Function<String, List<String>> pieces) {
        boolean includeUsage = request.body().path("stream_options").path("include_usage").asBoolean(false);
        JsonNode choice = success.path("choices").path(0);
        List<SseEvent> events = new ArrayList<>();
        ObjectNode opening = Json.object().put("role", "assistant").put("content", "");
        opening.putNull("refusal");
        events.add(chunk(success, opening, null, includeUsage));
        for (String piece : pieces.apply(choice.path("message").path("content").asText(""))) {
            events.add(chunk(success, Json.object().put("content", piece), null, includeUsage).asPiece());
        }
        JsonNode calls = choice.path("message").path("tool_calls");
        for (int i = 0; i < calls.size(); i++) {
            // As OpenAI streams a call: its id and name first, then its arguments' JSON text in pieces.
            JsonNode call = calls.get(i);
            ObjectNode opened = Json.object();
            opened.putArray("tool_calls").addObject().put("index", i).put("id", call.path("id").asText())
                    .put("type", "function").putObject("function").put("name", call.path("function").path("name")
                            .asText()).put("arguments", "");
            events.add(chunk(success, opened, null, includeUsage));
            for (String piece : pieces.apply(call.path("function").path("arguments").asText(""))) {
                ObjectNode delta = Json.object();
                delta.putArray("tool_calls").addObject().put("index", i).putObject("function")
                        .put("arguments", piece);
                events.add(chunk(success, delta, null, includeUsage).asPiece());
            }
        }
        events.add(chunk(success, Json.object(), choice.path("finish_reason").asText("stop"), includeUsage));
        if (includeUsage) {
            ObjectNode usage = envelope(success);
            usage.putArray("choices");
            usage.set("usage", success.get("usage").deepCopy());
            events.add(SseEvent.json(usage));
        }
        events.add(SseEvent.DONE);
        return events;
    }

    private static SseEvent chunk(JsonNode success, ObjectNode delta, String finishReason, boolean includeUsage) {
        ObjectNode chunk = envelope(success);
        ObjectNode choice = chunk.putArray("choices").addObject();
        choice.put("index", 0);
        choice.set("delta", delta);
        choice.putNull("logprobs");
        choice.put("finish_reason", finishReason);
        if (includeUsage) {
            chunk.putNull("usage");
        }
        return SseEvent.json(chunk);
    }

    private static ObjectNode envelope(JsonNode success) {
        ObjectNode chunk = Json.object();
        chunk.set("id", success.get("id"));
        chunk.put("object", "chat.completion.chunk");
        chunk.set("created", success.get("created"));
        chunk.set("model", success.get("model"));
        return chunk;
    }
}
