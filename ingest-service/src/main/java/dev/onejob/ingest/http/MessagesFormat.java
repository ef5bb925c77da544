package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.contract.FinishReason;
import dev.onejob.core.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The Anthropic Messages format of the drop-in endpoints ({@code POST /v1/messages}).
 *
 * <p>Passes through {@code system} (a string or text blocks), {@code messages} ({@code user} and {@code assistant},
 * text, {@code tool_use} and {@code tool_result} blocks, a user's {@code image} blocks), {@code tools} (custom tools),
 * {@code tool_choice}, {@code max_tokens} (required, as Anthropic requires it), {@code temperature}, {@code top_p},
 * {@code stop_sequences}, {@code top_k} (which routes the job to Anthropic-protocol providers only), and
 * {@code output_config.format} of type {@code json_schema}, whose schema becomes the job's output schema. Accepts and
 * ignores {@code metadata}. Refuses anything else (images beside tool results, server tools, thinking) with the
 * parameter named.
 */
final class MessagesFormat implements DropInFormat {
    private static final Set<String> PASSED = Set.of("model", "system", "messages", "max_tokens", "temperature",
            "top_p", "stop_sequences", "output_config", "stream", "tools", "tool_choice", "top_k");
    private static final Set<String> IGNORED = Set.of("metadata");

    @Override
    public String name() {
        return "anthropic";
    }

    @Override
    public Call read(JsonNode body) {
        Reading reading = Reading.of(body, PASSED, IGNORED);
        List<String> problems = reading.problems();
        ObjectNode variables = reading.variables();
        JsonNode system = body.get("system");
        if (system != null && !system.isNull()) {
            String text = DropInFormat.text(system, "system", problems);
            if (text != null && !text.isEmpty()) {
                variables.put("system", text);
            }
        }
        messages(body.get("messages"), variables, problems);
        if (!body.path("max_tokens").isIntegralNumber()) {
            problems.add("'max_tokens' is required: an integer");
        } else {
            variables.set("max_tokens", body.get("max_tokens"));
        }
        DropInFormat.number(body, "temperature", variables, "temperature", problems);
        DropInFormat.number(body, "top_p", variables, "top_p", problems);
        DropInFormat.number(body, "top_k", variables, "top_k", problems);
        DropInFormat.stop(body.get("stop_sequences"), "stop_sequences", variables, problems);
        outputConfig(body.get("output_config"), variables, problems);
        DropInTools.readAnthropic(body, variables, problems);
        boolean stream = DropInFormat.flag(body, "stream", problems);
        return reading.call(stream, true);
    }

    private static void messages(JsonNode messages, ObjectNode variables, List<String> problems) {
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            problems.add("'messages' is required: a non-empty array");
            return;
        }
        ArrayNode turns = variables.putArray("messages");
        for (int i = 0; i < messages.size(); i++) {
            JsonNode message = messages.get(i);
            String role = message.path("role").asText("");
            if (!role.equals("user") && !role.equals("assistant")) {
                problems.add("messages[" + i + "].role must be 'user' or 'assistant'");
                continue;
            }
            JsonNode content = message.get("content");
            if ("user".equals(role) && DropInImages.shown(content, true) && !hasToolBlocks(content)) {
                turns.addObject().put("role", role).set("content",
                        DropInImages.fromAnthropic(content, "messages[" + i + "].content", problems));
                continue;
            }
            if (content != null && content.isArray() && hasToolBlocks(content)) {
                blocks(content, role, "messages[" + i + "].content", turns, problems);
                continue;
            }
            String text = DropInFormat.text(content, "messages[" + i + "].content", problems);
            if (text != null) {
                turns.addObject().put("role", role).put("content", text);
            }
        }
    }

    private static boolean hasToolBlocks(JsonNode content) {
        for (JsonNode block : content) {
            String type = block.path("type").asText();
            if (type.equals("tool_use") || type.equals("tool_result")) {
                return true;
            }
        }
        return false;
    }

    /**
     * A message with tool blocks: an assistant's text and {@code tool_use} blocks become one turn with its calls; a
     * user's {@code tool_result} blocks become one tool turn each, its text blocks a user turn after them.
     */
    private static void blocks(JsonNode content, String role, String where, ArrayNode turns, List<String> problems) {
        StringBuilder text = new StringBuilder();
        ArrayNode calls = Json.MAPPER.createArrayNode();
        for (int b = 0; b < content.size(); b++) {
            JsonNode block = content.get(b);
            String at = where + "[" + b + "]";
            switch (block.path("type").asText("") + ":" + role) {
                case "text:user", "text:assistant" -> text.append(block.path("text").asText());
                case "tool_use:assistant" -> {
                    if (!block.path("id").isTextual() || !block.path("name").isTextual()
                            || !block.path("input").isObject()) {
                        problems.add(at + ": a tool_use block needs an id, a name and an input object");
                    } else {
                        calls.addObject().put("id", block.get("id").asText()).put("name", block.get("name").asText())
                                .set("arguments", block.get("input"));
                    }
                }
                case "tool_result:user" -> {
                    JsonNode result = block.get("content");
                    String resultText = result == null || result.isNull() ? ""
                            : DropInFormat.text(result, at + ".content", problems);
                    if (!block.path("tool_use_id").isTextual()) {
                        problems.add(at + ".tool_use_id is required: the tool_use it answers");
                    } else if (resultText != null) {
                        ObjectNode turn = turns.addObject().put("role", "tool").put("content", resultText)
                                .put("tool_call_id", block.get("tool_use_id").asText());
                        if (block.path("is_error").asBoolean(false)) {
                            turn.put("is_error", true);
                        }
                    }
                }
                default -> problems.add(at + ": a '" + block.path("type").asText("?") + "' block in a " + role
                        + " message is not passed through (text, an assistant's tool_use and a user's tool_result "
                        + "are)");
            }
        }
        if (!calls.isEmpty()) {
            turns.addObject().put("role", role).put("content", text.toString()).set("tool_calls", calls);
        } else if (text.length() > 0) {
            turns.addObject().put("role", role).put("content", text.toString());
        }
    }

    private static void outputConfig(JsonNode config, ObjectNode variables, List<String> problems) {
        if (config == null || config.isNull()) {
            return;
        }
        config.fieldNames().forEachRemaining(name -> {
            if (!name.equals("format")) {
                problems.add("output_config." + name + " is not passed through (output_config.format is)");
            }
        });
        JsonNode format = config.get("format");
        if (format == null || format.isNull()) {
            return;
        }
        if (!"json_schema".equals(format.path("type").asText()) || !format.path("schema").isObject()) {
            problems.add("output_config.format must be {\"type\": \"json_schema\", \"schema\": {...}}");
            return;
        }
        variables.set("output_schema", format.get("schema"));
    }

    @Override
    public ObjectNode answer(Finished finished) {
        ObjectNode message = message(finished.head());
        ArrayNode content = message.putArray("content");
        if (finished.toolCalls().isEmpty() || !finished.text().isEmpty()) {
            content.addObject().put("type", "text").put("text", finished.text());
        }
        finished.toolCalls().forEach(call -> content.add(DropInTools.toAnthropic(call)));
        message.put("stop_reason", FinishReason.toAnthropic(finished.finishReason()));
        message.putNull("stop_sequence");
        message.set("usage", usage(finished.usage(), false));
        return message;
    }

    private static ObjectNode message(Finished.Head head) {
        ObjectNode message = Json.object();
        message.put("id", head.id());
        message.put("type", "message");
        message.put("role", "assistant");
        message.put("model", head.model());
        return message;
    }

    /**
     * Anthropic's {@code input_tokens} counts only the uncached input, and cache reads are reported apart; onejob
     * keeps the total and the cached part, so the uncached part is their difference.
     */
    private static ObjectNode usage(Usage usage, boolean outputOnly) {
        ObjectNode node = Json.object();
        if (usage == null) {
            usage = new Usage(0, 0, 0);
        }
        if (!outputOnly) {
            node.put("input_tokens", usage.inputTokens() - usage.cachedInputTokens());
            node.put("cache_read_input_tokens", usage.cachedInputTokens());
            node.put("cache_creation_input_tokens", 0);
        }
        node.put("output_tokens", usage.outputTokens());
        return node;
    }

    @Override
    public StreamEvents stream(Finished.Head head, boolean includeUsage) {
        return new Events(head);
    }

    /** Anthropic's events: message_start and an open text block, text deltas, then the tool_use blocks and the end. */
    private record Events(Finished.Head head) implements StreamEvents {
        @Override
        public List<String> start() {
            ObjectNode message = message(head);
            message.putArray("content");
            message.putNull("stop_reason");
            message.putNull("stop_sequence");
            message.set("usage", Json.object().put("input_tokens", 0).put("output_tokens", 0));
            ObjectNode block = Json.object().put("type", "content_block_start").put("index", 0);
            block.putObject("content_block").put("type", "text").put("text", "");
            return List.of(
                    DropInFormat.event("message_start", Json.object().put("type", "message_start")
                            .set("message", message)),
                    DropInFormat.event("content_block_start", block));
        }

        @Override
        public List<String> delta(String text) {
            ObjectNode delta = Json.object().put("type", "content_block_delta").put("index", 0);
            delta.putObject("delta").put("type", "text_delta").put("text", text);
            return List.of(DropInFormat.event("content_block_delta", delta));
        }

        @Override
        public List<String> end(Finished finished) {
            List<String> events = new ArrayList<>();
            events.add(blockStop(0));
            for (int i = 0; i < finished.toolCalls().size(); i++) {
                ObjectNode block = DropInTools.toAnthropic(finished.toolCalls().get(i));
                String input = Json.write(block.get("input"));
                block.putObject("input");
                ObjectNode start = Json.object().put("type", "content_block_start").put("index", i + 1);
                start.set("content_block", block);
                ObjectNode delta = Json.object().put("type", "content_block_delta").put("index", i + 1);
                delta.putObject("delta").put("type", "input_json_delta").put("partial_json", input);
                events.add(DropInFormat.event("content_block_start", start));
                events.add(DropInFormat.event("content_block_delta", delta));
                events.add(blockStop(i + 1));
            }
            ObjectNode delta = Json.object().put("type", "message_delta");
            delta.putObject("delta").put("stop_reason", FinishReason.toAnthropic(finished.finishReason()))
                    .putNull("stop_sequence");
            delta.set("usage", usage(finished.usage(), false));
            events.add(DropInFormat.event("message_delta", delta));
            events.add(DropInFormat.event("message_stop", Json.object().put("type", "message_stop")));
            return events;
        }

        private String blockStop(int index) {
            return DropInFormat.event("content_block_stop", Json.object().put("type", "content_block_stop")
                    .put("index", index));
        }

        @Override
        public String error(Problem problem, String message) {
            ObjectNode event = Json.object().put("type", "error");
            event.set("error", DropInProblems.error(problem, true).put("message", message));
            return DropInFormat.event("error", event);
        }
    }
}
