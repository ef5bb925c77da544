package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;

/**
 * A streamed reply (Server-Sent Events), read line by line as it arrives, its pieces of answer handed to a
 * {@link ChunkSink}, and assembled into the reply the same call would have had unstreamed, so it is read by exactly
 * the code that reads those ({@link WireFormat#answer()}, {@link WireFormat#usage()}).
 *
 * <p>Made per protocol by {@link #openAi} and {@link #anthropic}. A stream that ends without its end event, or with
 * an error event, says so in {@link Assembled#problem()}: such a reply is no answer.
 */
abstract class SseReply implements Flow.Subscriber<String> {
    /**
     * The assembled reply, or why there is none. {@code tooLarge}: the answer's text ran past the limit set with
     * {@link #limitTo}; the reply then holds the text up to the limit, and its usage block as the provider sent it.
     */
    record Assembled(ObjectNode reply, String problem, boolean errorEvent, boolean tooLarge, long answerChars) {
        Assembled(ObjectNode reply, String problem, boolean errorEvent) {
            this(reply, problem, errorEvent, false, 0);
        }
    }

    private final ChunkSink sink;
    private long maxChars = Long.MAX_VALUE;
    private long answerChars;
    private final StringBuilder data = new StringBuilder();
    private String event;
    private boolean ended;
    private String error;
    /** A line or an event was longer than any answer may be: dropped unread, and the answer too large. */
    private boolean overlong;
    /** The event being read went past that bound: its further data lines are dropped until its blank line. */
    private boolean droppingEvent;

    SseReply(ChunkSink sink) {
        this.sink = sink;
    }

    /**
     * Keeps at most {@code maxChars} characters of answer: past them the stream is still read to its end (for the
     * usage the provider reports there), its text neither kept nor handed on.
     */
    final SseReply limitTo(long maxChars) {
        this.maxChars = maxChars;
        return this;
    }

    static SseReply openAi(ChunkSink sink) {
        return new OpenAiStream(sink);
    }

    static SseReply anthropic(ChunkSink sink) {
        return new AnthropicStream(sink);
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        subscription.request(Long.MAX_VALUE);
    }

    /** A line longer than any answer may be arrived ({@link BoundedLines}): it was dropped unread. */
    final void overlong() {
        overlong = true;
    }

    @Override
    public void onNext(String line) {
        if (line.isEmpty()) {
            droppingEvent = false;
            dispatch();
        } else if (line.startsWith("data:")) {
            if (droppingEvent || data.length() + line.length() > ProviderConfig.ANSWER_BYTES_LIMIT) {
                // An event of many data lines, longer than any answer may be: dropped, like an over-long line.
                overlong = true;
                droppingEvent = true;
                data.setLength(0);
                return;
            }
            data.append(data.length() == 0 ? "" : "\n").append(stripOneSpace(line.substring(5)));
        } else if (line.startsWith("event:")) {
            event = stripOneSpace(line.substring(6));
        }
        // Comments (":") and other fields (id, retry) carry nothing a reply needs.
    }

    @Override
    public void onError(Throwable throwable) {
        // The exchange's future fails with it; nothing to assemble.
    }

    @Override
    public void onComplete() {
        dispatch();
    }

    private void dispatch() {
        if (data.length() == 0) {
            event = null;
            return;
        }
        String text = data.toString();
        String name = event;
        data.setLength(0);
        event = null;
        if (ended || error != null) {
            return;
        }
        if (text.equals("[DONE]")) {
            ended = true;
            return;
        }
        JsonNode json;
        try {
            json = Json.parse(text);
        } catch (IllegalArgumentException e) {
            error = "the stream held an event that is not JSON: " + e.getMessage();
            return;
        }
        if ("error".equals(name) || json.has("error") && !json.has("choices")) {
            error = json.path("error").path("message").asText(Json.write(json));
            return;
        }
        if (event(name, json)) {
            ended = true;
        }
    }

    /** Reads one event; true when it is the stream's end event. */
    abstract boolean event(String name, JsonNode data);

    /** The reply as the unstreamed call would have had it. */
    abstract ObjectNode reply();

    /** Counts a piece of answer; true when it is within the limit, so kept and handed on. */
    final boolean keep(String text) {
        answerChars += text.length();
        return answerChars <= maxChars;
    }

    /** Hands a piece on. */
    final void piece(String text) {
        if (text != null && !text.isEmpty()) {
            sink.piece(text);
        }
    }

    /** Called by the body handler once the body is complete. */
    final Assembled assembled() {
        if (error != null) {
            return new Assembled(null, "the provider's stream ended with an error event: " + error, true);
        }
        if (!ended) {
            return new Assembled(null, "the provider's stream ended before its end event", false);
        }
        sink.end();
        return new Assembled(reply(), null, false, overlong || answerChars > maxChars, answerChars);
    }

    private static String stripOneSpace(String value) {
        return value.startsWith(" ") ? value.substring(1) : value;
    }

    /**
     * OpenAI: {@code chat.completion.chunk} objects, the usage in the last one, then {@code [DONE]}. Tool calls come
     * as deltas by index (the id and name first, the arguments' JSON text in pieces): assembled, never handed on as
     * text.
     */
    private static final class OpenAiStream extends SseReply {
        private final StringBuilder content = new StringBuilder();
        private final List<ObjectNode> toolCalls = new ArrayList<>();
        private final List<StringBuilder> arguments = new ArrayList<>();
        private String id;
        private String finishReason;
        private JsonNode usage;

        OpenAiStream(ChunkSink sink) {
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

    /** Anthropic: message_start, content blocks with their deltas, message_delta (the usage), message_stop. */
    private static final class AnthropicStream extends SseReply {
        private ObjectNode message;
        private final List<ObjectNode> blocks = new ArrayList<>();
        private final List<StringBuilder> texts = new ArrayList<>();

        AnthropicStream(ChunkSink sink) {
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
}
