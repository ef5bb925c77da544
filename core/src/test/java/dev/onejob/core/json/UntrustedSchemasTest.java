package dev.onejob.core.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.testing.CountingServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A caller's schema can never make onejob fetch anything, nor run a pattern in more than linear time: what
 * {@link JsonSchemas#fromUntrusted} refuses, what it still accepts, and how its patterns run.
 */
class UntrustedSchemasTest {
    private final CountingServer remote = CountingServer.start();

    @AfterEach
    void stopTheServer() {
        remote.close();
    }

    private static SchemaRefusedException refused(String schema) {
        return assertThrows(SchemaRefusedException.class, () -> JsonSchemas.fromUntrusted(Json.parse(schema)));
    }

    private static void assertMentions(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), "'" + part + "' in: " + message);
        }
    }

    @Test
    void aRemoteReferenceIsRefusedNamingItsPointerAndNothingIsFetched() throws Exception {
        String url = remote.url("/remote.json");

        SchemaRefusedException error = refused("""
                {"type":"object","properties":{"a":{"$ref":"%s"}}}""".formatted(url));

        assertEquals("/properties/a/$ref", error.pointer());
        assertMentions(error.getMessage(), "/properties/a/$ref", url, "only references inside this schema");
        assertEquals(0, remote.hits());
        // the bait does answer a fetch, so a fetch above would have been counted
        HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.discarding());
        assertEquals(1, remote.hits());
    }

    @Test
    void aRemoteSchemaDynamicReferenceOrIdIsRefusedAndNothingIsFetched() {
        String url = remote.url("/meta.json");

        SchemaRefusedException schema = refused("{\"$schema\":\"" + url + "\",\"type\":\"object\"}");
        SchemaRefusedException dynamic = refused("{\"items\":{\"$dynamicRef\":\"" + url + "#meta\"}}");
        SchemaRefusedException id = refused("{\"$id\":\"" + url + "\",\"$defs\":{\"a\":{\"type\":\"string\"}},"
                + "\"$ref\":\"#/$defs/a\"}");

        assertMentions(schema.getMessage(), "/$schema", url, "draft/2020-12");
        assertMentions(dynamic.getMessage(), "/items/$dynamicRef", url);
        assertMentions(id.getMessage(), "/$id", url);
        assertEquals(0, remote.hits());
    }

    @Test
    void evenTheProjectsOwnSchemasFetchNothing() {
        // the trusted way in skips the walk; what stops a remote reference there is the loader that loads nothing
        JsonNode schema = Json.parse("{\"$ref\":\"" + remote.url("/remote.json") + "\"}");

        assertThrows(RuntimeException.class, () -> JsonSchemas.fromShipped(schema));

        assertEquals(0, remote.hits());
    }

    @Test
    void theDraftsMetaSchemaComesFromTheClasspath() {
        // a reference to the meta-schema is loaded from networknt's jar, offline, and really validates
        JsonSchemas metaSchema = JsonSchemas.fromShipped(Json.parse(
                "{\"$ref\":\"https://json-schema.org/draft/2020-12/schema\"}"));

        assertEquals(List.of(), metaSchema.violations(Json.parse("{\"type\":\"string\"}")));
        assertFalse(metaSchema.violations(Json.parse("{\"type\":5}")).isEmpty());
    }

    @Test
    void theDraft202012MetaSchemaIsTheOnlyOneAccepted() {
        for (String uri : List.of("https://json-schema.org/draft/2020-12/schema",
                "https://json-schema.org/draft/2020-12/schema#")) {
            JsonSchemas schema = JsonSchemas.fromUntrusted(Json.parse("""
                    {"$schema":"%s","type":"object","properties":{"a":{"type":"string"}}}""".formatted(uri)));
            assertEquals(1, schema.violations(Json.parse("{\"a\":1}")).size(), uri);
        }

        SchemaRefusedException draft7 = refused("{\"$schema\":\"http://json-schema.org/draft-07/schema#\"}");

        assertMentions(draft7.getMessage(), "/$schema", "draft-07");
    }

    @Test
    void aReferenceInsideTheDocumentCompilesAndValidates() {
        JsonSchemas schema = JsonSchemas.fromUntrusted(Json.parse("""
                {"type":"object","required":["who"],"properties":{"who":{"$ref":"#/$defs/person"},
                 "also":{"$ref":"#named"}},
                 "$defs":{"person":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}},
                          "other":{"$anchor":"named","type":"integer"}}}"""));

        assertEquals(List.of(), schema.violations(Json.parse("{\"who\":{\"name\":\"Ada\"},\"also\":3}")));
        assertEquals(1, schema.violations(Json.parse("{\"who\":{\"name\":7}}")).size());
        assertEquals(1, schema.violations(Json.parse("{\"who\":{\"name\":\"Ada\"},\"also\":\"x\"}")).size());
    }

    @Test
    void aPropertyNamedRefIsANameNotAReference() {
        JsonSchemas schema = JsonSchemas.fromUntrusted(Json.parse("""
                {"type":"object","required":["$ref"],"properties":{"$ref":{"type":"string"},
                 "$id":{"type":"integer"}},"$defs":{"$ref":{"type":"null"}}}"""));

        assertEquals(List.of(), schema.violations(Json.parse("{\"$ref\":\"" + remote.url("/x") + "\",\"$id\":1}")));
        assertEquals(1, schema.violations(Json.parse("{\"$ref\":1}")).size());
        assertEquals(0, remote.hits());
    }

    @Test
    void aReferenceIntoDataOrToAnUndeclaredAnchorIsRefused() {
        // an enum value is data: were it compiled as a schema, its own remote reference would be reached
        SchemaRefusedException intoData = refused("""
                {"properties":{"a":{"enum":[{"$ref":"%s"}]},"b":{"$ref":"#/properties/a/enum/0"}}}"""
                .formatted(remote.url("/x")));
        SchemaRefusedException anchor = refused("{\"$ref\":\"#nowhere\"}");
        SchemaRefusedException missing = refused("{\"$ref\":\"#/$defs/absent\"}");

        assertMentions(intoData.getMessage(), "/properties/b/$ref", "#/properties/a/enum/0",
                "does not point at a schema");
        assertMentions(anchor.getMessage(), "/$ref", "#nowhere");
        assertMentions(missing.getMessage(), "#/$defs/absent");
        assertEquals(0, remote.hits());
    }

    @Test
    void aReferenceLoopThatNeverDescendsIsRefusedAndARecursiveTreeIsNot() {
        SchemaRefusedException loop = refused("{\"$defs\":{\"a\":{\"allOf\":[{\"$ref\":\"#/$defs/b\"}]},"
                + "\"b\":{\"$ref\":\"#/$defs/a\"}},\"$ref\":\"#/$defs/a\"}");
        SchemaRefusedException self = refused("{\"not\":{\"$ref\":\"#\"}}");
        JsonSchemas tree = JsonSchemas.fromUntrusted(Json.parse("""
                {"type":"object","properties":{"name":{"type":"string"},
                 "children":{"type":"array","items":{"$ref":"#"}}}}"""));

        assertMentions(loop.getMessage(), "$ref", "again without end");
        assertMentions(self.getMessage(), "/not/$ref", "again without end");
        assertEquals(List.of(), tree.violations(Json.parse("{\"name\":\"a\",\"children\":[{\"name\":\"b\"}]}")));
        assertEquals(1, tree.violations(Json.parse("{\"children\":[{\"children\":[{\"name\":3}]}]}")).size());
    }

    @Test
    void aPatternRe2CannotRunIsRefusedAtCompileNamingItsPointer() {
        SchemaRefusedException backreference = refused("""
                {"properties":{"a":{"type":"string","pattern":"^(a)\\\\1$"}}}""");
        SchemaRefusedException lookahead = refused("{\"patternProperties\":{\"^(?=x)\":{\"type\":\"string\"}}}");

        assertMentions(backreference.getMessage(), "/properties/a/pattern", "only linear-time patterns");
        assertMentions(lookahead.getMessage(), "/patternProperties/^(?=x)", "only linear-time patterns");
    }

    @Test
    void aCatastrophicPatternAnswersAtOnceOnALongString() {
        JsonSchemas schema = JsonSchemas.fromUntrusted(Json.parse("""
                {"type":"object","properties":{"a":{"type":"string","pattern":"^(a+)+$"}}}"""));
        ObjectNode evil = Json.object().put("a", "a".repeat(5_000) + "!");

        // a backtracking engine takes longer than the age of the universe here; RE2 one pass
        List<String> violations = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> schema.violations(evil));

        assertEquals(1, violations.size(), violations.toString());
        assertEquals(List.of(), schema.violations(Json.object().put("a", "a".repeat(5_000))));
    }

    @Test
    void aPatternIsFoundAnywhereInTheStringAndReadsUnicodeEscapes() {
        JsonSchemas schema = JsonSchemas.fromUntrusted(Json.parse("""
                {"properties":{"a":{"pattern":"b+"},"e":{"pattern":"^\\\\u00e9t\\\\u00e9$"}},
                 "patternProperties":{"^x-":{"type":"integer"}}}"""));

        assertEquals(List.of(), schema.violations(Json.parse("{\"a\":\"abbc\",\"e\":\"\u00e9t\u00e9\"}")));
        assertEquals(1, schema.violations(Json.parse("{\"a\":\"ac\"}")).size());
        assertEquals(1, schema.violations(Json.parse("{\"e\":\"ete\"}")).size());
        assertEquals(1, schema.violations(Json.parse("{\"x-n\":\"not a number\"}")).size());
    }

    @Test
    void aPatternThatExpandsPastItsBoundIsRefusedBeforeItIsCompiled() {
        SchemaRefusedException nested = assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> refused("{\"pattern\":\"((a{1000}){1000}){1000}\"}"));

        assertMentions(nested.getMessage(), "/pattern", String.valueOf(LinearRegex.MAX_PATTERN_SIZE));
    }

    @Test
    void aSchemaPastItsSizeIsRefusedNamingTheBound() {
        String description = "x".repeat(UntrustedSchemaCheck.MAX_BYTES);

        SchemaRefusedException error = refused("{\"type\":\"object\",\"description\":\"" + description + "\"}");

        assertMentions(error.getMessage(), String.valueOf(UntrustedSchemaCheck.MAX_BYTES), "64 KiB");
    }

    @Test
    void aSchemaWithTooManyValuesIsRefusedNamingTheBound() {
        ObjectNode schema = Json.object();
        ArrayNode values = schema.putArray("enum");
        for (int i = 0; i < UntrustedSchemaCheck.MAX_NODES; i++) {
            values.add(i);
        }

        SchemaRefusedException error = assertThrows(SchemaRefusedException.class,
                () -> JsonSchemas.fromUntrusted(schema));

        assertMentions(error.getMessage(), String.valueOf(UntrustedSchemaCheck.MAX_NODES), "JSON values");
        values.remove(0);
        values.remove(0);
        JsonSchemas.fromUntrusted(schema); // exactly the bound: the object, the array and the values left
    }

    @Test
    void aSchemaNestedTooDeepIsRefusedNamingTheBound() {
        SchemaRefusedException error = assertThrows(SchemaRefusedException.class,
                () -> JsonSchemas.fromUntrusted(nested(UntrustedSchemaCheck.MAX_DEPTH + 1)));

        assertMentions(error.getMessage(), "nested more than " + UntrustedSchemaCheck.MAX_DEPTH, "/properties/a");
        JsonSchemas.fromUntrusted(nested(UntrustedSchemaCheck.MAX_DEPTH));
    }

    /** A schema whose property "a" is an object with a property "a", {@code levels} deep below the top. */
    private static JsonNode nested(int levels) {
        ObjectNode top = Json.object().put("type", "object");
        ObjectNode current = top;
        for (int i = 0; i < levels; i++) {
            current = current.putObject("properties").putObject("a").put("type", "object");
        }
        return top;
    }

    @Test
    void theEventSchemasThisProjectShipsStillCompileTheTrustedWay() {
        JsonSchemas raceAudit = JsonSchemas.fromClasspath("events/race-audit.v2.schema.json");

        assertTrue(raceAudit.violations(Json.object()).size() > 0);
        assertEquals(0, remote.hits());
    }
}
