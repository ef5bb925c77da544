package dev.onejob.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.AbsoluteIri;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import com.networknt.schema.resource.ClasspathSchemaLoader;
import com.networknt.schema.resource.DisallowSchemaLoader;
import com.networknt.schema.resource.InputStreamSource;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Set;

/**
 * JSON Schema (draft 2020-12) validation. Violations come back as readable messages naming the JSON path. Two ways
 * in, by whom the schema comes from:
 * <ul>
 * <li>{@link #fromClasspath} and {@link #fromShipped}: the project's own schemas (the event schemas of the schema
 * module, the OpenAPI document's), which may carry {@code $id} and {@code $schema};
 * <li>{@link #fromUntrusted}: everything a caller or a contract file supplies (a drop-in call's response format, a
 * passthrough job's {@code output_schema}, a contract's schemas), first held to {@link UntrustedSchemaCheck}.
 * </ul>
 * Either way nothing is ever fetched: the only schemas loaded from outside the document are draft 2020-12's own
 * meta-schemas, from networknt's jar, and every pattern runs on RE2 ({@link LinearRegex}), in linear time.
 */
public final class JsonSchemas {
    private static final String META_SCHEMAS = "classpath:draft/2020-12/";
    private static final ClasspathSchemaLoader CLASSPATH =
            new ClasspathSchemaLoader(JsonSchemaFactory.class::getClassLoader);
    /**
     * networknt maps {@code https://json-schema.org/...} to {@code classpath:...} before loading; past the draft's
     * meta-schemas, every load is refused, before its own defaults (classpath and URL fetching) are reached.
     */
    private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012,
            builder -> builder.schemaLoaders(loaders -> loaders.add(JsonSchemas::metaSchema)
                    .add(DisallowSchemaLoader.getInstance())));
    private static final SchemaValidatorsConfig CONFIG = SchemaValidatorsConfig.builder()
            .formatAssertionsEnabled(true)
            .regularExpressionFactory(LinearRegex.FACTORY)
            .build();

    private final JsonSchema schema;

    private JsonSchemas(JsonSchema schema) {
        this.schema = schema;
    }

    /** A schema this project ships on the classpath, e.g. {@code events/attempt-command.v1.schema.json}. */
    public static JsonSchemas fromClasspath(String resource) {
        try (InputStream in = JsonSchemas.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no schema on the classpath at " + resource);
            }
            return compile(Json.MAPPER.readTree(in));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read schema " + resource + ": " + e.getMessage(), e);
        }
    }

    /**
     * A schema taken out of a document this project ships (the OpenAPI document's components), not held to the
     * bounds of a caller's. Never for a schema a caller, a contract file or a provider supplies: {@link
     * #fromUntrusted}.
     */
    public static JsonSchemas fromShipped(JsonNode schema) {
        return compile(schema);
    }

    /**
     * A schema a caller or a contract file supplies: one self-contained draft 2020-12 document, references only
     * inside it, bounded in size, patterns in RE2 syntax.
     *
     * @throws SchemaRefusedException naming the JSON pointer and the value of what is refused
     * @throws RuntimeException when the validator cannot compile it otherwise (e.g. a keyword of the wrong type)
     */
    public static JsonSchemas fromUntrusted(JsonNode schema) {
        UntrustedSchemaCheck.check(schema);
        return compile(schema);
    }

    private static JsonSchemas compile(JsonNode node) {
        JsonSchema compiled = FACTORY.getSchema(node, CONFIG);
        // networknt's own preload swallows what it cannot resolve until the first validation; here it fails now.
        compiled.initializeValidators();
        return new JsonSchemas(compiled);
    }

    private static InputStreamSource metaSchema(AbsoluteIri iri) {
        return iri != null && iri.toString().startsWith(META_SCHEMAS) ? CLASSPATH.getSchema(iri) : null;
    }

    /** Empty when the document is valid; otherwise one message per violation. */
    public List<String> violations(JsonNode document) {
        Set<ValidationMessage> messages = schema.validate(document);
        return messages.stream().map(ValidationMessage::getMessage).sorted().toList();
    }
}
