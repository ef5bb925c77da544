package dev.onejob.core.contract;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.JsonSchemas;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One call's prompt, rendered and ready for any wire protocol: what every provider adapter sends, whichever way the
 * job was written (a template contract and its variables, or a passthrough call).
 *
 * @param contractId     the contract it was made from, for the messages that name it
 * @param system         the system text ("" for none)
 * @param turns          the conversation, oldest first; the last is the user's
 * @param temperature    the sampling temperature, or null to leave the provider's default
 * @param topP           nucleus sampling, or null to leave the provider's default
 * @param maxTokens      the most output tokens the call may produce
 * @param stop           stop sequences (empty for none)
 * @param outputSchema   the JSON Schema the answer must follow, or null for a free-text answer
 * @param schemaName     the name the schema is sent under ({@code [a-zA-Z0-9_-]{1,64}})
 * @param outputValidator validates a structured answer; null for free text
 * @param tools          the tools the model may call, and how it may choose; null for a call without tools
 * @param strict         whether the provider is asked to keep the output schema strictly (OpenAI's
 *                       {@code json_schema.strict}): true for a contract's schema, the caller's flag for a passthrough
 *                       call (null when it sent none: the provider's default)
 * @param options        the parameters only one protocol has, by their wire names, sent as given by the adapter of
 *                       that protocol ({@link #OPENAI_OPTIONS}, {@link #ANTHROPIC_OPTIONS}); a call that has them
 *                       is routed only to providers of that protocol; empty for none
 * @param jsonObject     the caller asked for any JSON object (OpenAI's {@code json_object} response format) rather
 *                       than for a schema: {@link #outputSchema} is then {@code {"type": "object"}}, which is how a
 *                       protocol without that format is asked, and OpenAI-protocol providers get the format itself
 */
public record Prompt(String contractId, String system, List<Turn> turns, Double temperature, Double topP,
                     int maxTokens, List<String> stop, JsonNode outputSchema, String schemaName,
                     JsonSchemas outputValidator, Tools tools, Boolean strict, Map<String, JsonNode> options,
                     boolean jsonObject) {

    /** The parameters only OpenAI's protocol takes. */
    public static final List<String> OPENAI_OPTIONS = List.of("seed", "frequency_penalty", "presence_penalty");
    /** The parameters only Anthropic's protocol takes. */
    public static final List<String> ANTHROPIC_OPTIONS = List.of("top_k");

    /** The key of a free-text answer's one field: such an answer is stored as {@code {"text": "..."}}. */
    public static final String TEXT = "text";
    /** The key of the tool calls of an answer that calls tools: {@code {"text": "...", "tool_calls": [...]}}. */
    public static final String TOOL_CALLS = "tool_calls";
    private static final int MAX_SCHEMA_NAME = 64;

    /**
     * One message of the conversation: {@code user}, {@code assistant} or {@code tool}, and its text. An assistant
     * turn may call tools ({@code toolCalls}, empty for none); a tool turn answers one call ({@code toolCallId}),
     * {@code error} when the tool failed. A user turn that shows images has its {@code parts}, texts and images in
     * order (its {@code text} is then the texts alone, one per line, for estimates); {@code parts} is empty for a
     * message that is text only.
     */
    public record Turn(String role, String text, List<ToolCall> toolCalls, String toolCallId, boolean error,
                       List<Part> parts) {
        public Turn {
            toolCalls = List.copyOf(toolCalls);
            parts = List.copyOf(parts);
        }

        /** A message without images. */
        public Turn(String role, String text, List<ToolCall> toolCalls, String toolCallId, boolean error) {
            this(role, text, toolCalls, toolCallId, error, List.of());
        }

        /** A plain text message. */
        public Turn(String role, String text) {
            this(role, text, List.of(), null, false);
        }

        /** The images of the message, in order. */
        public long images() {
            return parts.stream().filter(Part::image).count();
        }
    }

    /**
     * One piece of a user message that shows images, in the caller's order: a text, or an image by its URL (an
     * {@code http(s)} URL the provider fetches, or a {@code data:image/...;base64,} URL carrying the image), with
     * OpenAI's {@code detail} ({@code auto}, {@code low}, {@code high}; null when the caller sent none).
     */
    public record Part(String text, String imageUrl, String detail) {
        public static Part text(String text) {
            return new Part(text, null, null);
        }

        public static Part image(String url, String detail) {
            return new Part(null, url, detail);
        }

        public boolean image() {
            return imageUrl != null;
        }

        /** A passthrough message's parts when its content is texts and images; empty for text content. */
        static List<Part> of(JsonNode content) {
            List<Part> parts = new ArrayList<>();
            if (content.isArray()) {
                content.forEach(part -> parts.add(Passthrough.IMAGE.equals(part.path("type").asText())
                        ? image(part.path("url").asText(), part.path("detail").asText(null))
                        : text(part.path("text").asText())));
            }
            return parts;
        }
    }

    /** One call of a tool: the call's id (the provider's), the tool's name and its arguments (a JSON object). */
    public record ToolCall(String id, String name, JsonNode arguments) {
    }

    /**
     * One tool: its name, what it does ("" for nothing said), its parameters' JSON Schema, and OpenAI's strict flag.
     */
    public record Tool(String name, String description, JsonNode parameters, Boolean strict) {
    }

    /**
     * The tools of a call and how the model may use them.
     *
     * @param list     the tools, in the caller's order
     * @param choice   {@code auto} (the model decides), {@code none}, {@code required} (at least one call) or
     *                 {@code tool} (a call of {@code name})
     * @param name     the tool a {@code tool} choice names; null otherwise
     * @param parallel whether the model may call several tools in one answer; null leaves the provider's default
     */
    public record Tools(List<Tool> list, String choice, String name, Boolean parallel) {
        public Tools {
            list = List.copyOf(list);
        }

        /** The names of the tools. */
        public Set<String> names() {
            Set<String> names = new HashSet<>();
            list.forEach(tool -> names.add(tool.name()));
            return names;
        }
    }

    public Prompt {
        turns = List.copyOf(turns);
        stop = List.copyOf(stop);
        options = Map.copyOf(options);
    }

    /** A contract's prompt: no tools, its output schema kept strictly. */
    public Prompt(String contractId, String system, List<Turn> turns, Double temperature, Double topP,
                  int maxTokens, List<String> stop, JsonNode outputSchema, String schemaName,
                  JsonSchemas outputValidator) {
        this(contractId, system, turns, temperature, topP, maxTokens, stop, outputSchema, schemaName,
                outputValidator, null, Boolean.TRUE, Map.of(), false);
    }

    /** True when the answer must be a JSON object following {@link #outputSchema}; false for free text. */
    public boolean structured() {
        return outputSchema != null;
    }

    /**
     * Why {@code answer} cannot become a result: invalid against the output schema (which forbids invented keys),
     * or, for free text, not the {@code {"text": "..."}} object the adapters make of a text answer, with the
     * {@code tool_calls} of an answer that calls the call's tools: each with an id, naming a tool the call declared
     * (a tool the model invented is no answer), its arguments an object.
     */
    public List<String> outputProblems(JsonNode answer) {
        if (answer == null || !answer.isObject()) {
            return List.of("the answer is not a JSON object");
        }
        if (structured()) {
            return outputValidator.violations(answer);
        }
        if (!answer.path(TEXT).isTextual()) {
            return List.of("a free-text answer must be {\"text\": \"...\"}");
        }
        if (!answer.has(TOOL_CALLS)) {
            return answer.size() == 1 ? List.of() : List.of("a free-text answer must be {\"text\": \"...\"}");
        }
        if (answer.size() != 2 || tools == null || "none".equals(tools.choice())) {
            return List.of("the answer calls tools the call did not offer");
        }
        return toolCallProblems(answer.get(TOOL_CALLS));
    }

    private List<String> toolCallProblems(JsonNode calls) {
        if (!calls.isArray() || calls.isEmpty()) {
            return List.of("tool_calls must be a non-empty array");
        }
        List<String> problems = new ArrayList<>();
        Set<String> offered = tools.names();
        for (int i = 0; i < calls.size(); i++) {
            JsonNode call = calls.get(i);
            if (!call.path("id").isTextual() || call.get("id").asText().isEmpty()) {
                problems.add("tool_calls[" + i + "] has no id");
            }
            String name = call.path("name").asText("");
            if (!offered.contains(name)) {
                problems.add("tool_calls[" + i + "] calls '" + name + "', which is not among the call's tools "
                        + offered);
            } else if ("tool".equals(tools.choice()) && !name.equals(tools.name())) {
                problems.add("tool_calls[" + i + "] calls '" + name + "', but the call chose '" + tools.name() + "'");
            }
            if (!call.path("arguments").isObject()) {
                problems.add("tool_calls[" + i + "].arguments is not a JSON object");
            }
        }
        return problems;
    }

    /** A contract id as a schema name: OpenAI accepts {@code [a-zA-Z0-9_-]{1,64}}. */
    public static String schemaNameOf(String contractId) {
        String name = contractId.replaceAll("[^a-zA-Z0-9_-]", "_");
        if (name.isEmpty()) {
            return "result";
        }
        return name.length() <= MAX_SCHEMA_NAME ? name : name.substring(0, MAX_SCHEMA_NAME);
    }

    /** Every turn's text, oldest first, one per line: what counts as the user's part for token estimates. */
    public String conversationText() {
        StringBuilder text = new StringBuilder();
        for (Turn turn : turns) {
            text.append(text.length() == 0 ? "" : "\n").append(turn.text());
        }
        return text.toString();
    }
}
