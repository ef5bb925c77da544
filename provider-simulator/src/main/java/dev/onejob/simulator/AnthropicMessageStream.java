package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A {@code message} answer as the named events of Anthropic's streamed answer ({@code "stream": true}).
 *
 * <p>Consumes the non-streamed answer {@link AnthropicWire#success} made for the request; produces, in order:
 * {@code message_start} (the message with {@code "content":[]}, {@code stop_reason} and {@code stop_sequence} null,
 * and its {@code usage} but {@code "output_tokens":1}), one {@code ping}, then for each content block at index
 * {@code i}: {@code content_block_start} (a {@code text} block with {@code "text":""}, or a {@code tool_use} block with
 * its {@code id}, {@code name} and {@code "input":{}}), one {@code content_block_delta} per piece (cut by
 * {@link TextPieces#split}, or as the caller says)
 * ({@code {"type":"text_delta","text":PIECE}}, or {@code {"type":"input_json_delta","partial_json":PIECE}} of the
 * input's compact JSON) and {@code content_block_stop}; then {@code message_delta} with the message's
 * {@code stop_reason} and {@code stop_sequence} and {@code "usage":{"output_tokens":N}}, N the answer's full output
 * count; last {@code message_stop}. Every data object carries its own {@code "type"}, equal to the event name. So
 * the pieces join to exactly the non-streamed content and the tokens are the ones the ledger bills. Owns nothing.
 */
final class AnthropicMessageStream {

    private AnthropicMessageStream() {
    }

    static List<SseEvent> events(JsonNode message, Function<String, List<String>> pieces) {
        List<SseEvent> events = new ArrayList<>();
        ObjectNode start = data("message_start");
        start.set("message", opening(message));
        events.add(event(start));
        events.add(event(data("ping")));
        JsonNode content = message.path("content");
        for (int index = 0; index < content.size(); index++) {
            addBlock(events, index, content.get(index), pieces);
        }
        ObjectNode messageDelta = data("message_delta");
        ObjectNode delta = messageDelta.putObject("delta");
        delta.set("stop_reason", message.get("stop_reason"));
        delta.set("stop_sequence", message.get("stop_sequence"));
        messageDelta.putObject("usage").put("output_tokens", message.path("usage").path("output_tokens").asLong());
        events.add(event(messageDelta));
        events.add(event(data("message_stop")));
        return events;
    }

    private static ObjectNode opening(JsonNode message) {
        ObjectNode opening = message.deepCopy();
        opening.putArray("content");
        opening.putNull("stop_reason");
        opening.putNull("stop_sequence");
        ObjectNode usage = (ObjectNode) opening.get("usage");
        usage.put("output_tokens", Math.min(1, usage.path("output_tokens").asLong()));
        return opening;
    }

    private static void addBlock(List<SseEvent> events, int index, JsonNode block,
                                 Function<String, List<String>> pieces) {
        boolean toolUse = "tool_use".equals(Json.text(block, "type"));
        ObjectNode start = data("content_block_start").put("index", index);
        ObjectNode opened = start.putObject("content_block");
        String text;
        if (toolUse) {
            opened.put("type", "tool_use");
            opened.set("id", block.get("id"));
            opened.set("name", block.get("name"));
            opened.putObject("input");
            text = Json.write(block.get("input"));
        } else {
            opened.put("type", "text").put("text", "");
            text = block.path("text").asText("");
        }
        events.add(event(start));
        for (String piece : pieces.apply(text)) {
            ObjectNode delta = data("content_block_delta").put("index", index);
            if (toolUse) {
                delta.putObject("delta").put("type", "input_json_delta").put("partial_json", piece);
            } else {
                delta.putObject("delta").put("type", "text_delta").put("text", piece);
            }
            events.add(event(delta).asPiece());
        }
        events.add(event(data("content_block_stop").put("index", index)));
    }

    /** An event's data, starting with its {@code "type"}, which is also the event's name. */
    private static ObjectNode data(String type) {
        return Json.object().put("type", type);
    }

    private static SseEvent event(ObjectNode data) {
        return SseEvent.json(data.get("type").asText(), data);
    }
}
