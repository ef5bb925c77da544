package dev.onejob.core.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.ConfigFiles;
import dev.onejob.core.json.CanonicalJson;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonSchemas;
import dev.onejob.core.json.SchemaRefusedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The contracts directory ({@code CONTRACTS_DIR}, default {@code config/contracts}): one YAML or JSON file per
 * contract, validated at startup with errors naming the file and field. The output schema's top level forbids
 * keys it does not define ({@code additionalProperties: false}) unless the author writes
 * {@code allow_extra_top_level_keys: true}.
 */
public final class Contracts {
    private final Map<String, Contract> byId;

    private Contracts(Map<String, Contract> byId) {
        this.byId = byId;
    }

    public static Contracts load(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new ConfigException(dir + ": contracts directory not found (set CONTRACTS_DIR)");
        }
        Map<String, Contract> byId = new TreeMap<>();
        List<Contract> builtIns = List.of(Passthrough.contract(), Passthrough.toolsContract());
        builtIns.forEach(builtIn -> byId.put(builtIn.id(), builtIn));
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(Contracts::isContractFile).sorted().toList()) {
                Contract contract = parse(file, ConfigFiles.read(file));
                if (builtIns.stream().anyMatch(builtIn -> builtIn.id().equals(contract.id()))) {
                    throw new ConfigException(file + ": contract id '" + contract.id() + "' is a built-in "
                            + "contract of the provider-compatible endpoints; choose another id");
                }
                if (byId.putIfAbsent(contract.id(), contract) != null) {
                    throw new ConfigException(file + ": contract id '" + contract.id() + "' is defined twice");
                }
            }
        } catch (IOException e) {
            throw new ConfigException(dir + ": cannot list contracts (" + e.getMessage() + ")");
        }
        if (byId.size() == builtIns.size()) {
            throw new ConfigException(dir + ": no contract files (*.yaml, *.yml, *.json)");
        }
        return new Contracts(byId);
    }

    private static boolean isContractFile(Path p) {
        String name = p.getFileName().toString();
        return name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json");
    }

    static Contract parse(Path file, JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new ConfigException(file + ": a contract must be a mapping with id, prompt, variables_schema, "
                    + "output_schema");
        }
        Map<String, String> noEnv = Map.of();
        String id = ConfigFiles.string(file, node, "contract", "id", noEnv);
        JsonNode prompt = node.get("prompt");
        if (prompt == null || !prompt.isObject()) {
            throw new ConfigException(file + ": contract.prompt is required, with system and user texts");
        }
        PromptTemplate system = new PromptTemplate(ConfigFiles.string(file, prompt, "prompt", "system", noEnv));
        PromptTemplate user = new PromptTemplate(ConfigFiles.string(file, prompt, "prompt", "user", noEnv));
        JsonNode variablesSchema = schema(file, node, "variables_schema");
        ObjectNode outputSchema = (ObjectNode) schema(file, node, "output_schema").deepCopy();
        boolean allowExtra = node.path("allow_extra_top_level_keys").asBoolean(false);
        if (!allowExtra) {
            if (outputSchema.has("additionalProperties") && !outputSchema.get("additionalProperties").isBoolean()) {
                throw new ConfigException(file + ": output_schema.additionalProperties must be false (or set "
                        + "allow_extra_top_level_keys: true)");
            }
            outputSchema.put("additionalProperties", false);
        }
        checkSlots(file, system, user, variablesSchema);
        JsonNode temperatureNode = node.path("temperature");
        double temperature = temperatureNode.isMissingNode() ? 0.0 : temperatureNode.asDouble(Double.NaN);
        if (!(temperature >= 0 && temperature <= 2)) {
            throw new ConfigException(file + ": contract.temperature must be a number from 0 to 2");
        }
        int maxTokens = ConfigFiles.positiveInt(file, node, "contract", "max_tokens", 512);
        JsonSchemas variablesValidator = compiled(file, "variables_schema", variablesSchema);
        JsonSchemas outputValidator = compiled(file, "output_schema", outputSchema);
        List<Contract.GoldenInput> golden = golden(file, node, variablesValidator);
        ObjectNode versioned = Json.object();
        versioned.put("system", system.text());
        versioned.put("user", user.text());
        versioned.set("variables_schema", variablesSchema);
        versioned.set("output_schema", outputSchema);
        String version = CanonicalJson.fingerprint(versioned);
        return new Contract(id, node.path("description").asText(""), system, user, variablesSchema, outputSchema,
                temperature, maxTokens, golden, version, variablesValidator, outputValidator, false);
    }

    /**
     * The built-in passthrough contract's file: id, variables schema, default max_tokens and golden inputs, no
     * template and no output schema (each call brings its own). Its version is the fingerprint of all of it.
     */
    static Contract parsePassthrough(Path file, JsonNode node) {
        Map<String, String> noEnv = Map.of();
        String id = ConfigFiles.string(file, node, "contract", "id", noEnv);
        JsonNode variablesSchema = schema(file, node, "variables_schema");
        int maxTokens = ConfigFiles.positiveInt(file, node, "contract", "max_tokens", 4096);
        JsonSchemas variablesValidator = compiled(file, "variables_schema", variablesSchema);
        List<Contract.GoldenInput> golden = golden(file, node, variablesValidator);
        ObjectNode free = Passthrough.freeForm();
        return new Contract(id, node.path("description").asText(""), new PromptTemplate(""), new PromptTemplate(""),
                variablesSchema, free, 0.0, maxTokens, golden, CanonicalJson.fingerprint(node),
                variablesValidator, JsonSchemas.fromUntrusted(free), true);
    }

    private static JsonNode schema(Path file, JsonNode node, String field) {
        JsonNode schema = node.get(field);
        if (schema == null || !schema.isObject() || !"object".equals(schema.path("type").asText())) {
            throw new ConfigException(file + ": contract." + field + " is required and must be a JSON Schema with "
                    + "type: object");
        }
        return schema;
    }

    /**
     * A contract's schema, held to the rules of a caller's ({@link JsonSchemas#fromUntrusted}): a contract file is
     * edited by hand and may come from anywhere, and a schema in it is compiled by every service that loads it.
     */
    private static JsonSchemas compiled(Path file, String field, JsonNode schema) {
        try {
            return JsonSchemas.fromUntrusted(schema);
        } catch (SchemaRefusedException e) {
            throw new ConfigException(file + ": contract." + field + " is refused: " + e.getMessage());
        } catch (RuntimeException e) {
            throw new ConfigException(file + ": contract." + field + " is not a usable JSON Schema: "
                    + e.getMessage());
        }
    }

    private static void checkSlots(Path file, PromptTemplate system, PromptTemplate user, JsonNode variablesSchema) {
        JsonNode properties = variablesSchema.path("properties");
        for (PromptTemplate template : List.of(system, user)) {
            for (String slot : template.slots()) {
                if (!properties.has(slot)) {
                    throw new ConfigException(file + ": the prompt uses {{" + slot + "}}, which variables_schema."
                            + "properties does not define");
                }
            }
        }
    }

    private static List<Contract.GoldenInput> golden(Path file, JsonNode node, JsonSchemas variablesValidator) {
        List<Contract.GoldenInput> golden = new ArrayList<>();
        JsonNode list = node.path("golden");
        for (int i = 0; i < list.size(); i++) {
            JsonNode item = list.get(i);
            JsonNode variables = item.path("variables");
            List<String> problems = variablesValidator.violations(variables);
            if (!variables.isObject() || !problems.isEmpty()) {
                throw new ConfigException(file + ": golden[" + i + "].variables do not match variables_schema: "
                        + problems);
            }
            golden.add(new Contract.GoldenInput(variables, item.path("expect").isObject() ? item.get("expect")
                    : Json.object()));
        }
        return golden;
    }

    public Optional<Contract> find(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    public Collection<Contract> all() {
        return byId.values();
    }
}
