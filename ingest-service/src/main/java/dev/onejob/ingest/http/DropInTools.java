package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.util.List;

/**
 * Tools in the drop-in formats: a call's tools, its tool choice and the conversation's tool calls, read from OpenAI's
 * and Anthropic's shapes into the passthrough contract's neutral variables ({@code tools}: name, description,
 * parameters, strict; {@code tool_choice}: auto, none, required or tool, with {@code parallel}; an assistant
 * message's {@code tool_calls}: id, name and arguments as a JSON object; a {@code tool} message's
 * {@code tool_call_id} and {@code is_error}), and an answer's tool calls written back in either shape.
 *
 * <p>Used by {@link ChatCompletionsFormat} and {@link MessagesFormat}. What a shape can say that the other cannot
 * (OpenAI's arguments that are not a JSON object, Anthropic's server tools) is refused with the parameter named, so a
 * job's tools mean the same to a provider of either protocol.
 */
final class DropInTools {
    private DropInTools() {
    }

    /** OpenAI {@code tools} (functions), {@code tool_choice} and {@code parallel_tool_calls}. */
    static void readOpenAi(JsonNode body, ObjectNode variables, List<String> problems) {
        eachTool(body, variables, problems, (list, i, tool) -> {
            if (!"function".equals(tool.path("type").asText())) {
                problems.add("tools[" + i + "].type must be 'function' (other tool types are not passed through)");
                return;
            }
            JsonNode function = tool.path("function");
            tool(list, function.get("name"), function.get("description"),
                    function.has("parameters") ? function.get("parameters") : emptyObjectSchema(),
                    function.get("strict"), "tools[" + i + "].function", problems);
        });
        JsonNode choice = body.get("tool_choice");
        ObjectNode neutral = Json.object();
        if (choice != null && !choice.isNull()) {
            if (choice.isTextual() && List.of("auto", "none", "required").contains(choice.asText())) {
                neutral.put("type", choice.asText());
            } else if (choice.isObject() && "function".equals(choice.path("type").asText())
                    && choice.path("function").path("name").isTextual()) {
                neutral.put("type", "tool").put("name", choice.get("function").get("name").asText());
            } else {
                problems.add("'tool_choice' must be 'auto', 'none', 'required' or {\"type\": \"function\", "
                        + "\"function\": {\"name\": ...}}");
            }
        }
        JsonNode parallel = body.get("parallel_tool_calls");
        if (parallel != null && !parallel.isNull()) {
            if (!parallel.isBoolean()) {
                problems.add("'parallel_tool_calls' must be true or false");
            } else {
                neutral.put("parallel", parallel.asBoolean());
            }
        }
        choice(neutral, variables);
    }

    /** Anthropic {@code tools} (custom tools) and {@code tool_choice}. */
    static void readAnthropic(JsonNode body, ObjectNode variables, List<String> problems) {
        eachTool(body, variables, problems, (list, i, tool) -> {
            if (tool.has("type") && !"custom".equals(tool.path("type").asText())) {
                problems.add("tools[" + i + "]: server tools ('" + tool.path("type").asText() + "') are not passed "
                        + "through, only custom tools");
                return;
            }
            tool(list, tool.get("name"), tool.get("description"), tool.get("input_schema"), null,
                    "tools[" + i + "]", problems);
        });
        JsonNode choice = body.get("tool_choice");
        ObjectNode neutral = Json.object();
        if (choice != null && !choice.isNull()) {
            String type = choice.path("type").asText("");
            switch (type) {
                case "auto", "none" -> neutral.put("type", type);
                case "any" -> neutral.put("type", "required");
                case "tool" -> {
                    if (choice.path("name").isTextual()) {
                        neutral.put("type", "tool").put("name", choice.get("name").asText());
                    } else {
                        problems.add("tool_choice.name is required when its type is 'tool'");
                    }
                }
                default -> problems.add("tool_choice.type must be 'auto', 'any', 'tool' or 'none'");
            }
            JsonNode disable = choice.get("disable_parallel_tool_use");
            if (disable != null && !disable.isNull()) {
                if (!disable.isBoolean()) {
                    problems.add("tool_choice.disable_parallel_tool_use must be true or false");
                } else {
                    neutral.put("parallel", !disable.asBoolean());
                }
            }
        }
        choice(neutral, variables);
    }

    /** Reads one tool of a call's {@code tools} into the neutral list. */
    private interface ToolReader {
        void read(ArrayNode list, int index, JsonNode tool);
    }

    private static void eachTool(JsonNode body, ObjectNode variables, List<String> problems, ToolReader reader) {
        JsonNode tools = body.get("tools");
        if (tools == null || tools.isNull()) {
            return;
        }
        if (!tools.isArray() || tools.isEmpty()) {
            problems.add("'tools' must be a non-empty array");
            return;
        }
        ArrayNode list = variables.putArray("tools");
        for (int i = 0; i < tools.size(); i++) {
            reader.read(list, i, tools.get(i));
        }
    }

    private static void choice(ObjectNode neutral, ObjectNode variables) {
        if (neutral.isEmpty()) {
            return;
        }
        if (!neutral.has("type")) {
            neutral.put("type", "auto");
        }
        variables.set("tool_choice", neutral);
    }

    private static void tool(ArrayNode list, JsonNode name, JsonNode description, JsonNode parameters,
                             JsonNode strict, String where, List<String> problems) {
        if (name == null || !name.isTextual() || !name.asText().matches("[a-zA-Z0-9_-]{1,64}")) {
            problems.add(where + ".name must match [a-zA-Z0-9_-]{1,64}");
            return;
        }
        if (parameters == null || !parameters.isObject()) {
            problems.add(where + ": the tool's parameters must be a JSON Schema object");
            return;
        }
        ObjectNode tool = list.addObject().put("name", name.asText());
        if (description != null && description.isTextual()) {
            tool.put("description", description.asText());
        }
        tool.set("parameters", parameters);
        if (strict != null && !strict.isNull()) {
            if (!strict.isBoolean()) {
                problems.add(where + ".strict must be true or false");
            } else {
                tool.put("strict", strict.asBoolean());
            }
        }
    }

    private static ObjectNode emptyObjectSchema() {
        ObjectNode schema = Json.object().put("type", "object");
        schema.putObject("properties");
        return schema;
    }

    /** An OpenAI assistant message's {@code tool_calls}, onto {@code turn}; arguments must be a JSON object. */
    static void openAiCalls(JsonNode calls, String where, ObjectNode turn, List<String> problems) {
        if (!calls.isArray() || calls.isEmpty()) {
            problems.add(where + " must be a non-empty array");
            return;
        }
        ArrayNode neutral = turn.putArray("tool_calls");
        for (int i = 0; i < calls.size(); i++) {
            JsonNode call = calls.get(i);
            JsonNode function = call.path("function");
            JsonNode arguments = null;
            try {
                arguments = Json.parse(function.path("arguments").asText(""));
            } catch (IllegalArgumentException e) {
                // reported below
            }
            if (!call.path("id").isTextual() || !function.path("name").isTextual() || arguments == null
                    || !arguments.isObject()) {
                problems.add(where + "[" + i + "] needs an id, a function name and arguments that are a JSON object "
                        + "as text");
                continue;
            }
            neutral.addObject().put("id", call.get("id").asText()).put("name", function.get("name").asText())
                    .set("arguments", arguments);
        }
    }

    /**
     * An answer's tool calls as OpenAI writes them: {@code id}, {@code type: function}, {@code function} with the
     * arguments as JSON text; {@code streamed}, each with its {@code index}, as a stream's delta carries them.
     */
    static ArrayNode toOpenAi(List<JsonNode> calls, boolean streamed) {
        ArrayNode list = Json.MAPPER.createArrayNode();
        for (int i = 0; i < calls.size(); i++) {
            JsonNode call = calls.get(i);
            ObjectNode entry = list.addObject();
            if (streamed) {
                entry.put("index", i);
            }
            entry.put("id", call.path("id").asText()).put("type", "function").putObject("function")
                    .put("name", call.path("name").asText()).put("arguments", Json.write(call.path("arguments")));
        }
        return list;
    }

    /** An answer's tool call as Anthropic writes it: a {@code tool_use} block. */
    static ObjectNode toAnthropic(JsonNode call) {
        ObjectNode block = Json.object().put("type", "tool_use").put("id", call.path("id").asText())
                .put("name", call.path("name").asText());
        block.set("input", call.path("arguments"));
        return block;
    }
}
