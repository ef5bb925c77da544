package dev.onejob.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Set;

/**
 * JSON Schema (draft 2020-12) validation: for the event schemas shipped in the schema module, and for the schemas
 * users write in contracts. Violations come back as readable messages naming the JSON path.
 */
public final class JsonSchemas {
    private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
    private static final SchemaValidatorsConfig CONFIG = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();

    private final JsonSchema schema;

    private JsonSchemas(JsonSchema schema) {
        this.schema = schema;
    }

    /** A schema on the classpath, e.g. {@code events/attempt-command.v1.schema.json}. */
    public static JsonSchemas fromClasspath(String resource) {
        try (InputStream in = JsonSchemas.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no schema on the classpath at " + resource);
            }
            return fromNode(Json.MAPPER.readTree(in));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read schema " + resource + ": " + e.getMessage(), e);
        }
    }

    public static JsonSchemas fromNode(JsonNode schema) {
        return new JsonSchemas(FACTORY.getSchema(schema, CONFIG));
    }

    /** Empty when the document is valid; otherwise one message per violation. */
    public List<String> violations(JsonNode document) {
        Set<ValidationMessage> messages = schema.validate(document);
        return messages.stream().map(ValidationMessage::getMessage).sorted().toList();
    }
}
