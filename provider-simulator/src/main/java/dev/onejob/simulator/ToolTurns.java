package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * How the simulated model uses a request's tools, the same in both wire protocols, so an agent loop through onejob
 * runs the same steps whichever provider answers: with {@code auto} it calls the tools in the order given, one per
 * turn, the next one each time a tool result came back, and answers in text once each was called; {@code required}
 * always calls one (the next, or the last once all were called); a named tool is always called; {@code none} never
 * calls. The call's arguments are made from the tool's parameters schema like any structured answer.
 */
final class ToolTurns {

    /** A tool choice in neutral form: {@code auto}, {@code none}, {@code required} or {@code tool} with its name. */
    record Choice(String type, String name) {
    }

    private ToolTurns() {
    }

    /** The tool to call this turn, given how many tool results the conversation already holds; null for none. */
    static JsonNode chosen(JsonNode tools, Choice choice, int answered) {
        if (tools == null || !tools.isArray() || tools.isEmpty() || "none".equals(choice.type())) {
            return null;
        }
        if (choice.name() != null) {
            return named(tools, choice.name());
        }
        if (answered < tools.size()) {
            return tools.get(answered);
        }
        return "required".equals(choice.type()) ? tools.get(tools.size() - 1) : null;
    }

    /** The tool of that name; null when there is none. */
    static JsonNode named(JsonNode tools, String name) {
        for (JsonNode tool : tools) {
            if (name.equals(Json.text(tool, "name"))) {
                return tool;
            }
        }
        return null;
    }

    /** OpenAI's function tools as {@code {name, parameters}}; null when the request has none. */
    static JsonNode openAiTools(JsonNode body) throws WireRejection {
        JsonNode tools = body.get("tools");
        if (tools == null || tools.isNull()) {
            return null;
        }
        if (!tools.isArray()) {
            throw Wire.badRequest("tools: must be an array");
        }
        ArrayNode functions = Json.MAPPER.createArrayNode();
        for (int i = 0; i < tools.size(); i++) {
            JsonNode function = tools.get(i).path("function");
            if (Json.text(function, "name") == null) {
                throw Wire.badRequest("tools[" + i + "].function.name is required");
            }
            functions.addObject().put("name", Json.text(function, "name")).set("parameters",
                    function.path("parameters").isObject() ? function.get("parameters")
                            : Json.object().put("type", "object"));
        }
        return functions;
    }

    /** OpenAI's {@code tool_choice}: a string, or a named function. */
    static Choice openAiChoice(JsonNode body) {
        JsonNode choice = body.get("tool_choice");
        if (choice == null || choice.isNull()) {
            return new Choice("auto", null);
        }
        if (choice.isTextual()) {
            return new Choice(choice.asText(), null);
        }
        return new Choice("tool", Json.text(choice.path("function"), "name"));
    }

    /** How many messages of {@code role} the conversation holds. */
    static int countRole(JsonNode messages, String role) {
        int count = 0;
        for (JsonNode message : messages) {
            count += role.equals(Json.text(message, "role")) ? 1 : 0;
        }
        return count;
    }

    /** How many content blocks of {@code type} the conversation's messages hold. */
    static int countBlocks(JsonNode messages, String type) {
        int count = 0;
        for (JsonNode message : messages) {
            for (JsonNode block : message.path("content")) {
                count += type.equals(Json.text(block, "type")) ? 1 : 0;
            }
        }
        return count;
    }
}
