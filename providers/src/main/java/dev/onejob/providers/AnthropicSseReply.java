package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.util.ArrayList;
import java.util.List;

/**
 * The Anthropic stream of {@link SseReply}: message_start, content blocks with their deltas, message_delta (the usage),
 * message_stop.
 */
final class AnthropicSseReply extends SseReply {
    private ObjectNode message;
    private final List<ObjectNode> blocks = new ArrayList<>();
    private final List<StringBuilder> texts = new ArrayList<>();

    AnthropicSseReply(ChunkSink sink) {
        super(sink);
    }

    @Override
    boolean event(String name, JsonNode data) {
        String type = data.path("type").asText(name == null ? "" : name);
        switch (type) {
            case "message_start" -> message = data.path("message").isObject()
                    ? (ObjectNode) data.get("message").deepCopy() : Json.object();
            case "content_block_start" -> {
                blocks.add(data.path("content_block").isObject()
                        ? (ObjectNode) data.get("content_block").deepCopy() : Json.object());
                texts.add(new StringBuilder());
            }
            case "content_block_delta" -> {
                int index = data.path("index").asInt(blocks.size() - 1);
                if (index >= 0 && index < texts.size()) {
                    JsonNode delta = data.path("delta");
                    String piece = delta.path("text").isTextual() ? delta.get("text").asText()
                            : delta.path("partial_json").asText(null);
                    if (piece != null && keep(piece)) {
                        texts.get(index).append(piece);
                        // A tool's arguments are no text of the answer, unless the tool is how onejob asked
                        // for structured output: those are the answer's JSON text.
                        if (!"tool_use".equals(blocks.get(index).path("type").asText())
                                || AnthropicMessagesClient.TOOL_NAME.equals(blocks.get(index).path("name").asText())) {
                            piece(piece);
                        }
                    }
                }
            }
            case "message_delta" -> {
                ObjectNode target = message == null ? (message = Json.object()) : message;
                data.path("delta").fields().forEachRemaining(f -> target.set(f.getKey(), f.getValue()));
                ObjectNode usage = target.with("usage");
                data.path("usage").fields().forEachRemaining(f -> usage.set(f.getKey(), f.getValue()));
            }
            case "message_stop" -> {
                return true;
            }
            default -> {
            }
        }
        return false;
    }

    @Override
    ObjectNode reply() {
        ObjectNode reply = message == null ? Json.object() : message;
        var content = reply.putArray("content");
        for (int i = 0; i < blocks.size(); i++) {
            ObjectNode block = blocks.get(i);
            if ("tool_use".equals(block.path("type").asText())) {
                if (texts.get(i).length() == 0) {
                    content.add(block);
                    continue;
                }
                try {
                    block.set("input", Json.parse(texts.get(i).toString()));
                } catch (IllegalArgumentException e) {
                    block.put("input", texts.get(i).toString());
                }
            } else if ("text".equals(block.path("type").asText())) {
                block.put("text", texts.get(i).toString());
            }
            content.add(block);
        }
        return reply;
    }
}
