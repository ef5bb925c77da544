package dev.onejob.core.contract;

import static java.util.stream.Collectors.joining;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.ConfigFiles;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonSchemas;
import dev.onejob.core.json.SchemaRefusedException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The built-in {@value #ID} contract ({@code contracts/passthrough.yaml} on the classpath): the job of every call
 * to the provider-compatible endpoints. Its variables are the call in one neutral form, whichever wire it came in
 * on: {@code system}, {@code messages} ({@code user}/{@code assistant} texts, an assistant's {@code tool_calls},
 * {@code tool} messages answering them), {@code temperature}, {@code top_p}, {@code max_tokens}, {@code stop},
 * {@code tools} with {@code tool_choice}, and for structured output {@code output_schema} with its
 * {@code schema_name}, or {@code json_object} for any JSON object.
 *
 * <p>A call's output schema is its job's output schema, exactly as the caller sent it, and so is its {@code strict}
 * flag ({@code schema_strict}, OpenAI's {@code json_schema.strict}): onejob's own check of an answer is that schema, so
 * an answer the provider would have accepted for the caller directly is accepted through onejob, and an answer that
 * breaks it fails the job's contract. Being the caller's, it is compiled as an untrusted schema
 * ({@link JsonSchemas#fromUntrusted}): references only inside it, bounded, patterns in RE2. Certification for
 * {@value #ID} runs the golden inputs of the file, which carry their own schemas, through the same adapters.
 */
public final class Passthrough {
    public static final String ID = "passthrough";
    /**
     * The built-in contract a provider is certified against before failover sends it a passthrough call with tools
     * ({@code contracts/passthrough-tools.yaml}: golden calls with tools, the passthrough variables schema). No job is
     * ever of this contract.
     */
    public static final String TOOLS_ID = "passthrough-tools";
    private static final String DEFAULT_SCHEMA_NAME = "result";
    /** The variable of a call that asks for any JSON object (OpenAI's {@code json_object} response format). */
    public static final String JSON_OBJECT = "json_object";
    /** The type of a message part that is an image ({@code {"type": "image", "url": ..., "detail": ...}}). */
    public static final String IMAGE = "image";

    private Passthrough() {
    }

    /** The built-in contract, read from the classpath; its version is the fingerprint of its file. */
    static Contract contract() {
        return Contracts.parsePassthrough(shown(ID), read(ID));
    }

    /**
     * The built-in tool-calling contract: its own id, description and golden calls over the passthrough contract's
     * variables schema and default {@code max_tokens}; its version is the fingerprint of both.
     */
    static Contract toolsContract() {
        ObjectNode node = (ObjectNode) read(ID).deepCopy();
        JsonNode tools = read(TOOLS_ID);
        node.set("id", tools.get("id"));
        node.set("description", tools.get("description"));
        node.set("golden", tools.get("golden"));
        return Contracts.parsePassthrough(shown(TOOLS_ID), node);
    }

    /** A built-in contract's file: {@code contracts/<id>.yaml} on the classpath, as errors name it. */
    private static Path shown(String id) {
        return Path.of("classpath:contracts/" + id + ".yaml");
    }

    private static JsonNode read(String id) {
        Path shown = shown(id);
        try (InputStream in = Passthrough.class.getClassLoader().getResourceAsStream("contracts/" + id + ".yaml")) {
            if (in == null) {
                throw new ConfigException(shown + ": a built-in contract is missing from the build");
            }
            return ConfigFiles.read(in, shown.toString());
        } catch (IOException e) {
            throw new ConfigException(shown + ": cannot read a built-in contract: " + e.getMessage());
        }
    }

    /**
     * The contract a provider must be certified for to serve a job of {@code contractId} with these variables by
     * failover: {@value #TOOLS_ID} for a passthrough call with tools, the job's own contract otherwise.
     */
    public static String certifiedAs(String contractId, JsonNode variables) {
        return ID.equals(contractId) && variables != null && variables.has("tools") ? TOOLS_ID : contractId;
    }

    /** Whether a call with these variables is answered with a JSON object (a schema's, or any) rather than text. */
    public static boolean structured(JsonNode variables) {
        return variables.has("output_schema") || variables.has(JSON_OBJECT);
    }

    /**
     * Why these (schema-valid) variables still cannot be a call: an output schema that cannot be one, or tools that
     * do not fit together.
     */
    static List<String> problems(JsonNode variables) {
        List<String> problems = new ArrayList<>(toolProblems(variables));
        problems.addAll(jsonObjectProblems(variables));
        JsonNode schema = variables.get("output_schema");
        if (schema == null) {
            if (variables.has("schema_strict")) {
                problems.add("schema_strict needs an output schema");
            }
            return problems;
        }
        if (!"object".equals(schema.path("type").asText())) {
            problems.add("output_schema must be a JSON Schema with type: object (a job's result is a JSON object)");
        }
        if (problems.isEmpty()) {
            try {
                JsonSchemas.fromUntrusted(schema);
            } catch (SchemaRefusedException e) {
                problems.add("output_schema is refused: " + e.getMessage());
            } catch (RuntimeException e) {
                problems.add("output_schema is not a usable JSON Schema: " + e.getMessage());
            }
        }
        return problems;
    }

    /**
     * A {@code json_object} call asks for any JSON object, so it has no schema and no tools (which would change what
     * the forced tool of an Anthropic-protocol provider means), and, as OpenAI insists, its instructions must say
     * JSON: a model told nothing of the format may write whitespace until its output limit.
     */
    private static List<String> jsonObjectProblems(JsonNode variables) {
        if (!variables.has(JSON_OBJECT)) {
            return List.of();
        }
        List<String> problems = new ArrayList<>();
        if (variables.has("output_schema") || variables.has("schema_strict") || variables.has("schema_name")) {
            problems.add("json_object asks for any JSON object: it has no output schema");
        }
        if (variables.has("tools")) {
            problems.add("tools and a json_object response format together are not passed through: send one");
        }
        boolean saysJson = variables.path("system").asText("").toLowerCase(Locale.ROOT).contains("json");
        for (JsonNode message : variables.path("messages")) {
            // The texts only: an image's base64 holds the letters j, s, o, n by chance often enough.
            JsonNode content = message.path("content");
            for (JsonNode text : content.isArray() ? content.findValues("text") : List.of(content)) {
                saysJson |= text.asText("").toLowerCase(Locale.ROOT).contains("json");
            }
        }
        if (!saysJson) {
            problems.add("json_object needs the word 'JSON' in the system text or the messages (OpenAI's rule: the "
                    + "model must be told to answer in JSON)");
        }
        return problems;
    }

    private static List<String> toolProblems(JsonNode variables) {
        List<String> problems = new ArrayList<>();
        JsonNode tools = variables.get("tools");
        JsonNode choice = variables.get("tool_choice");
        Set<String> names = new HashSet<>();
        if (tools != null) {
            tools.forEach(tool -> {
                if (!names.add(tool.path("name").asText())) {
                    problems.add("tools: '" + tool.path("name").asText() + "' is declared twice");
                }
            });
        }
        if (tools != null && variables.has("output_schema")) {
            problems.add("tools and a JSON schema response format together are not passed through: send one");
        }
        boolean openAiOnly = Prompt.OPENAI_OPTIONS.stream().anyMatch(variables::has);
        boolean anthropicOnly = Prompt.ANTHROPIC_OPTIONS.stream().anyMatch(variables::has);
        if (openAiOnly && anthropicOnly) {
            problems.add(Prompt.OPENAI_OPTIONS + " are OpenAI's and " + Prompt.ANTHROPIC_OPTIONS + " Anthropic's: no "
                    + "provider takes both");
        }
        if (choice != null && tools == null) {
            problems.add("tool_choice needs tools");
        }
        if (choice != null && "tool".equals(choice.path("type").asText()) != choice.has("name")) {
            problems.add("tool_choice names a tool when, and only when, its type is 'tool'");
        }
        if (choice != null && choice.has("name") && !names.contains(choice.get("name").asText())) {
            problems.add("tool_choice names '" + choice.get("name").asText() + "', which is not among the tools");
        }
        JsonNode messages = variables.path("messages");
        for (int i = 0; i < messages.size(); i++) {
            JsonNode message = messages.get(i);
            String role = message.path("role").asText();
            if (message.has("tool_calls") && !"assistant".equals(role)) {
                problems.add("messages[" + i + "]: only an assistant message calls tools");
            }
            if ("tool".equals(role) != message.has("tool_call_id")) {
                problems.add("messages[" + i + "]: a tool message, and only one, answers a tool call (tool_call_id)");
            }
            if (message.path("content").isArray() && !"user".equals(role)) {
                problems.add("messages[" + i + "]: only a user message shows images (content parts)");
            }
            if (message.has("is_error") && !"tool".equals(role)) {
                problems.add("messages[" + i + "]: only a tool message has is_error");
            }
        }
        return problems;
    }

    /** The prompt of one call; the variables were validated when the job was accepted. */
    static Prompt prompt(Contract contract, JsonNode variables) {
        List<Prompt.Turn> turns = new ArrayList<>();
        for (JsonNode message : variables.path("messages")) {
            List<Prompt.ToolCall> calls = new ArrayList<>();
            message.path("tool_calls").forEach(call -> calls.add(new Prompt.ToolCall(call.path("id").asText(),
                    call.path("name").asText(), call.path("arguments"))));
            List<Prompt.Part> parts = Prompt.Part.of(message.path("content"));
            String text = parts.isEmpty() ? message.path("content").asText()
                    : parts.stream().filter(part -> !part.image()).map(Prompt.Part::text).collect(joining("\n"));
            turns.add(new Prompt.Turn(message.path("role").asText(), text, calls,
                    message.path("tool_call_id").asText(null), message.path("is_error").asBoolean(false), parts));
        }
        List<String> stop = new ArrayList<>();
        variables.path("stop").forEach(s -> stop.add(s.asText()));
        boolean jsonObject = variables.has(JSON_OBJECT);
        JsonNode schema = jsonObject ? freeForm() : variables.get("output_schema");
        return new Prompt(contract.id(), variables.path("system").asText(""), turns, number(variables, "temperature"),
                number(variables, "top_p"), variables.path("max_tokens").asInt(contract.maxTokens()), stop, schema,
                variables.path("schema_name").asText(DEFAULT_SCHEMA_NAME),
                schema == null ? null : JsonSchemas.fromUntrusted(schema), tools(variables),
                variables.has("schema_strict") ? variables.get("schema_strict").asBoolean() : null,
                options(variables), jsonObject);
    }

    /**
     * The one protocol whose providers can honour a call that has a parameter only that protocol takes
     * ({@link Prompt#OPENAI_OPTIONS}, {@link Prompt#ANTHROPIC_OPTIONS}): no translation could keep it, so such a job
     * runs only there. Empty for a call any provider can serve.
     */
    public static Optional<ProviderProtocol> onlyFor(JsonNode variables) {
        if (Prompt.OPENAI_OPTIONS.stream().anyMatch(variables::has)) {
            return Optional.of(ProviderProtocol.OPENAI_CHAT);
        }
        if (Prompt.ANTHROPIC_OPTIONS.stream().anyMatch(variables::has)) {
            return Optional.of(ProviderProtocol.ANTHROPIC_MESSAGES);
        }
        return Optional.empty();
    }

    /** The parameters of a call that only one protocol takes, by name. */
    public static List<String> protocolOnly(JsonNode variables) {
        List<String> named = new ArrayList<>();
        Prompt.OPENAI_OPTIONS.stream().filter(variables::has).forEach(named::add);
        Prompt.ANTHROPIC_OPTIONS.stream().filter(variables::has).forEach(named::add);
        return named;
    }

    private static Map<String, JsonNode> options(JsonNode variables) {
        Map<String, JsonNode> options = new HashMap<>();
        protocolOnly(variables).forEach(name -> options.put(name, variables.get(name)));
        return options;
    }

    private static Prompt.Tools tools(JsonNode variables) {
        JsonNode tools = variables.get("tools");
        if (tools == null) {
            return null;
        }
        List<Prompt.Tool> list = new ArrayList<>();
        tools.forEach(tool -> list.add(new Prompt.Tool(tool.path("name").asText(),
                tool.path("description").asText(""), tool.path("parameters"),
                tool.has("strict") ? tool.get("strict").asBoolean() : null)));
        JsonNode choice = variables.path("tool_choice");
        return new Prompt.Tools(list, choice.path("type").asText("auto"), choice.path("name").asText(null),
                choice.has("parallel") ? choice.get("parallel").asBoolean() : null);
    }

    private static Double number(JsonNode variables, String field) {
        JsonNode value = variables.get(field);
        return value == null || !value.isNumber() ? null : value.asDouble();
    }

    /** An empty object, for the schema-less contract fields the record requires. */
    static ObjectNode freeForm() {
        return Json.object().put("type", "object");
    }
}
