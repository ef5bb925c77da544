package dev.onejob.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code openapi.yaml} as an OpenAPI parser reads it: every message swagger-parser has about the document (an
 * unexpected attribute, a duplicate key, a wrong type, a reference that names nothing) fails the build, and so does
 * a key in a Schema Object that is no JSON Schema 2020-12 or OpenAPI 3.1 keyword. swagger-parser accepts unknown
 * keywords in 3.1 schemas (JSON Schema allows them) and drops them without a word, which is how an unquoted comma
 * in a flow mapping ({@code {description: a, in order.}}) once turned {@code in order.} into a key unnoticed.
 */
class OpenApiDocumentTest {
    /** JSON Schema 2020-12 (core, applicator, unevaluated, validation, meta-data, format, content) and OAS 3.1. */
    private static final Set<String> SCHEMA_KEYWORDS = Set.of(
            "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
            "prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
            "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
            "unevaluatedItems", "unevaluatedProperties",
            "type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
            "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
            "maxProperties", "minProperties", "required", "dependentRequired",
            "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
            "format", "contentEncoding", "contentMediaType", "contentSchema",
            "discriminator", "xml", "externalDocs", "example");
    private static final Set<String> ONE_SUBSCHEMA = Set.of("items", "contains", "additionalProperties",
            "propertyNames", "if", "then", "else", "not", "unevaluatedItems", "unevaluatedProperties", "contentSchema");
    private static final Set<String> SUBSCHEMA_LISTS = Set.of("prefixItems", "allOf", "anyOf", "oneOf");
    private static final Set<String> SUBSCHEMA_MAPS = Set.of("properties", "patternProperties", "$defs",
            "dependentSchemas");

    @Test
    void theOpenApiDocumentParsesWithoutASingleMessage() throws IOException {
        String document = document();

        List<String> messages = problems(document);

        assertEquals(List.of(), messages, messages.size() + " problem(s) with openapi.yaml:\n  "
                + String.join("\n  ", messages));
    }

    @Test
    void theCheckCatchesAStrayKeyInsideASchemaAndAnUnexpectedAttributeOutsideOne() {
        // a check that cannot fail proves nothing: the comma of issue 14, and an attribute OpenAPI does not define
        String document = """
                openapi: 3.1.0
                info: {title: t, version: '1'}
                paths:
                  /x:
                    get:
                      summry: typo
                      responses:
                        '200':
                          description: ok
                          content:
                            application/json:
                              schema: {type: array, items: {type: string, description: Providers, in order.}}
                """;

        List<String> messages = problems(document);

        assertEquals(List.of("attribute paths.'/x'(get).summry is unexpected",
                "paths./x.get.responses.200.content.application/json.schema.items: 'in order.' is not a JSON Schema "
                        + "or OpenAPI keyword"), messages);
    }

    /** What swagger-parser reports, then every key of a Schema Object that is no keyword. */
    private static List<String> problems(String document) {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(document, null, options);
        List<String> problems = new ArrayList<>(result.getMessages() == null ? List.of() : result.getMessages());
        if (result.getOpenAPI() == null) {
            problems.add("swagger-parser read no document");
            return problems;
        }
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(document);
        } catch (IOException e) {
            problems.add("not YAML: " + e.getMessage());
            return problems;
        }
        root.path("components").path("schemas").fields()
                .forEachRemaining(s -> schema(s.getValue(), "components.schemas." + s.getKey(), problems));
        root.fields().forEachRemaining(f -> {
            if (!f.getKey().equals("components")) {
                outsideSchemas(f.getValue(), f.getKey(), problems);
            }
        });
        root.path("components").fields().forEachRemaining(f -> {
            if (!f.getKey().equals("schemas")) {
                outsideSchemas(f.getValue(), "components." + f.getKey(), problems);
            }
        });
        return problems;
    }

    /** Walks the OpenAPI objects (swagger-parser checks them) to the Schema Objects under their "schema" keys. */
    private static void outsideSchemas(JsonNode node, String at, List<String> problems) {
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                outsideSchemas(node.get(i), at + "[" + i + "]", problems);
            }
        }
        for (Map.Entry<String, JsonNode> field : iterable(node)) {
            String key = field.getKey();
            if (key.equals("schema")) {
                schema(field.getValue(), at + "." + key, problems);
            } else if (!key.equals("example") && !key.equals("examples") && !key.startsWith("x-")) {
                outsideSchemas(field.getValue(), at + "." + key, problems);
            }
        }
    }

    private static void schema(JsonNode node, String at, List<String> problems) {
        if (node.isBoolean()) {
            return;
        }
        if (!node.isObject()) {
            problems.add(at + ": a schema must be an object or a boolean, not " + node.getNodeType());
            return;
        }
        for (Map.Entry<String, JsonNode> field : iterable(node)) {
            String key = field.getKey();
            JsonNode value = field.getValue();
            if (!SCHEMA_KEYWORDS.contains(key) && !key.startsWith("x-")) {
                problems.add(at + ": '" + key + "' is not a JSON Schema or OpenAPI keyword");
            } else if (ONE_SUBSCHEMA.contains(key)) {
                schema(value, at + "." + key, problems);
            } else if (SUBSCHEMA_LISTS.contains(key)) {
                for (int i = 0; i < value.size(); i++) {
                    schema(value.get(i), at + "." + key + "[" + i + "]", problems);
                }
            } else if (SUBSCHEMA_MAPS.contains(key)) {
                for (Map.Entry<String, JsonNode> sub : iterable(value)) {
                    schema(sub.getValue(), at + "." + key + "." + sub.getKey(), problems);
                }
            }
        }
    }

    private static Iterable<Map.Entry<String, JsonNode>> iterable(JsonNode node) {
        return node::fields;
    }

    private static String document() throws IOException {
        try (InputStream in = OpenApiDocumentTest.class.getClassLoader().getResourceAsStream("openapi.yaml")) {
            assertNotNull(in, "openapi.yaml is not among the schema module's resources");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
