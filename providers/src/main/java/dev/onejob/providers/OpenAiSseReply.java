package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.util.ArrayList;
import java.util.List;

/**
 * The OpenAI stream of {@link SseReply}: {@code chat.completion.chunk} objects, the usage in the last one, then {@code [DONE]}. Tool calls come
 * as deltas by index (the id and name first, the arguments' JSON text in pieces): assembled, never handed on as
 * text.
 */
final class OpenAiSseReply extends SseReply {
    private final StringBuilder content = new StringBuilder();
    private final List<ObjectNode> toolCalls = new ArrayList<>();
    private final List<StringBuilder> arguments = new ArrayList<>();
    private String id;
    private String finishReason;
    private JsonNode usage;

    OpenAiSseReply(ChunkSink sink) {
        super(sink);
    }

    @Override
    boolean event(String name, JsonNode chunk) {
        if (id == null && chunk.path("id").isTextual()) {
            id = chunk.get("id").asText();
        }
        if (chunk.path("usage").isObject()) {
            usage = chunk.get("usage");
        }
        for (JsonNode choice : chunk.path("choices")) {
            JsonNode piece = choice.path("delta").path("content");
            if (piece.isTextual() && keep(piece.asText())) {
                content.append(piece.asText());
                piece(piece.asText());
            }
            for (JsonNode call : choice.path("delta").path("tool_calls")) {
                toolCall(call);
            }
            if (choice.path("finish_reason").isTextual()) {
                finishReason = choice.get("finish_reason").asText();
            }
        }
        return false;
    }

    private void toolCall(JsonNode delta) {
        int index = delta.path("index").asInt(toolCalls.size() - 1);
        if (index < 0 || index > toolCalls.size()) {
            return;
        }
        if (index == toolCalls.size()) {
            toolCalls.add(Json.object().put("type", "function"));
            arguments.add(new StringBuilder());
        }
        ObjectNode call = toolCalls.get(index);
        if (delta.path("id").isTextual()) {
            call.put("id", delta.get("id").asText());
        }
        JsonNode function = delta.path("function");
        if (function.path("name").isTextual()) {
            call.put("name", function.get("name").asText());
        }
        String piece = function.path("arguments").asText("");
        if (keep(piece)) {
            arguments.get(index).append(piece);
        }
    }

    @Override
    ObjectNode reply() {
        ObjectNode reply = Json.object();
        if (id != null) {
            reply.put("id", id);
        }
        ObjectNode choice = reply.putArray("choices").addObject();
        ObjectNode message = choice.putObject("message").put("role", "assistant").put("content", content.toString());
        if (!toolCalls.isEmpty()) {
            ArrayNode calls = message.putArray("tool_calls");
            for (int i = 0; i < toolCalls.size(); i++) {
                ObjectNode call = toolCalls.get(i);
                calls.addObject().put("id", call.path("id").asText("")).put("type", "function")
                        .putObject("function").put("name", call.path("name").asText(""))
                        .put("arguments", arguments.get(i).toString());
            }
        }
        choice.put("finish_reason", finishReason);
        if (usage != null) {
            reply.set("usage", usage);
        }
        return reply;
    }
}

