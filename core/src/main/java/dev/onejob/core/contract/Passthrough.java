package dev.onejob.core.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.ConfigFiles;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonSchemas;
import dev.onejob.core.json.SchemaRefusedException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The built-in {@value #ID} contract ({@code contracts/passthrough.yaml} on the classpath): the job of every call
 * to the provider-compatible endpoints. Its variables are the call in one neutral form, whichever wire it came in
 * on: {@code system}, {@code messages} ({@code user}/{@code assistant} texts), {@code temperature}, {@code top_p},
 * {@code max_tokens}, {@code stop}, and for structured output {@code output_schema} with its {@code schema_name}.
 *
 * <p>A call's output schema is its job's output schema, held to the contracts' rule: its top level forbids keys it
 * does not define ({@code additionalProperties: false} is added when absent, and {@code true} is refused), so an
 * invented key fails the job's contract. Being the caller's, it is compiled as an untrusted schema
 * ({@link JsonSchemas#fromUntrusted}): references only inside it, bounded, patterns in RE2. Certification for
 * {@value #ID} runs the golden inputs of the file, which carry their own schemas, through the same adapters.
 */
public final class Passthrough {
    public static final String ID = "passthrough";
    private static final String RESOURCE = "contracts/passthrough.yaml";
    private static final String DEFAULT_SCHEMA_NAME = "result";

    private Passthrough() {
    }

    /** The built-in contract, read from the classpath; its version is the fingerprint of its variables schema. */
    static Contract contract() {
        Path shown = Path.of("classpath:" + RESOURCE);
        try (InputStream in = Passthrough.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new ConfigException(shown + ": the built-in passthrough contract is missing from the build");
            }
            return Contracts.parsePassthrough(shown, ConfigFiles.read(in, shown.toString()));
        } catch (IOException e) {
            throw new ConfigException(shown + ": cannot read the built-in passthrough contract: " + e.getMessage());
        }
    }

    /** Why these (schema-valid) variables still cannot be a call: an output schema that cannot be one. */
    static List<String> problems(JsonNode variables) {
        JsonNode schema = variables.get("output_schema");
        if (schema == null) {
            return List.of();
        }
        List<String> problems = new ArrayList<>();
        if (!"object".equals(schema.path("type").asText())) {
            problems.add("output_schema must be a JSON Schema with type: object");
        }
        JsonNode extra = schema.get("additionalProperties");
        if (extra != null && !(extra.isBoolean() && !extra.asBoolean())) {
            problems.add("output_schema.additionalProperties must be false (or absent): an answer with a key the "
                    + "schema does not define breaks the contract");
        }
        if (problems.isEmpty()) {
            try {
                JsonSchemas.fromUntrusted(closed(schema));
            } catch (SchemaRefusedException e) {
                problems.add("output_schema is refused: " + e.getMessage());
            } catch (RuntimeException e) {
                problems.add("output_schema is not a usable JSON Schema: " + e.getMessage());
            }
        }
        return problems;
    }

    /** The prompt of one call; the variables were validated when the job was accepted. */
    static Prompt prompt(Contract contract, JsonNode variables) {
        List<Prompt.Turn> turns = new ArrayList<>();
        for (JsonNode message : variables.path("messages")) {
            turns.add(new Prompt.Turn(message.path("role").asText(), message.path("content").asText()));
        }
        List<String> stop = new ArrayList<>();
        variables.path("stop").forEach(s -> stop.add(s.asText()));
        JsonNode schema = variables.get("output_schema");
        ObjectNode closed = schema == null ? null : closed(schema);
        return new Prompt(contract.id(), variables.path("system").asText(""), turns, number(variables, "temperature"),
                number(variables, "top_p"), variables.path("max_tokens").asInt(contract.maxTokens()), stop, closed,
                variables.path("schema_name").asText(DEFAULT_SCHEMA_NAME),
                closed == null ? null : JsonSchemas.fromUntrusted(closed));
    }

    private static ObjectNode closed(JsonNode schema) {
        ObjectNode copy = (ObjectNode) schema.deepCopy();
        copy.put("additionalProperties", false);
        return copy;
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
