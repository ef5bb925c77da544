package dev.onejob.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFilesTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    @Test
    void theShippedProvidersAndContractsLoad() {
        Providers providers = Providers.load(Path.of("../config/providers.yaml"), Map.of("SIM_PRIMARY_URL", "http://127.0.0.1:7001"));
        assertEquals("http://127.0.0.1:7001", providers.find("primary").orElseThrow().baseUrl().toString());
        assertEquals(ProviderProtocol.ANTHROPIC_MESSAGES, providers.find("backup").orElseThrow().protocol());
        Contract sentiment = Contracts.load(Path.of("../config/contracts")).find("sentiment").orElseThrow();
        assertEquals(64, sentiment.version().length());
        assertEquals(false, sentiment.outputSchema().get("additionalProperties").asBoolean());
        assertEquals("Text: I loved it\n", sentiment.user().render(Json.parse("{\"text\":\"I loved it\"}")));
    }

    @Test
    void aProviderErrorNamesTheFileAndField() throws IOException {
        Path file = write("providers.yaml", """
                providers:
                  - id: primary
                    protocol: openai-chat
                    base_url: http://x
                    model: m
                    soft_timeout: 10x
                """);
        ConfigException error = assertThrows(ConfigException.class, () -> Providers.load(file, Map.of()));
        assertTrue(error.getMessage().contains("providers[0].soft_timeout"), error.getMessage());
        assertTrue(error.getMessage().contains(file.toString()), error.getMessage());
    }

    @Test
    void aYamlSyntaxErrorNamesTheLine() throws IOException {
        Path file = write("providers.yaml", "providers:\n  - id: [unclosed\n");
        ConfigException error = assertThrows(ConfigException.class, () -> Providers.load(file, Map.of()));
        assertTrue(error.getMessage().matches("(?s).*providers\\.yaml:2:\\d+: .*"), error.getMessage());
    }

    @Test
    void anUnknownProtocolAndAMissingEnvironmentVariableAreNamed() throws IOException {
        Path protocol = write("p1.yaml", "providers:\n  - {id: a, protocol: grpc, base_url: 'http://x', model: m}\n");
        assertTrue(assertThrows(ConfigException.class, () -> Providers.load(protocol, Map.of())).getMessage()
                .contains("openai-chat, anthropic-messages"));
        Path env = write("p2.yaml", "providers:\n  - {id: a, protocol: openai-chat, base_url: '${NOPE}', model: m}\n");
        assertTrue(assertThrows(ConfigException.class, () -> Providers.load(env, Map.of())).getMessage()
                .contains("${NOPE}"));
    }

    @Test
    void aContractWhosePromptUsesAnUndefinedVariableIsRefused() throws IOException {
        Path contracts = Files.createDirectory(dir.resolve("contracts"));
        Files.writeString(contracts.resolve("bad.yaml"), """
                id: bad
                prompt: {system: "s", user: "Hello {{name}}"}
                variables_schema: {type: object, properties: {text: {type: string}}}
                output_schema: {type: object, properties: {a: {type: string}}}
                """);
        ConfigException error = assertThrows(ConfigException.class, () -> Contracts.load(contracts));
        assertTrue(error.getMessage().contains("{{name}}"), error.getMessage());
    }

    @Test
    void aContractWhoseSchemaReachesOutsideItselfFailsAtLoadNamingTheFileAndPointer() throws IOException {
        Path contracts = Files.createDirectory(dir.resolve("contracts"));
        Path file = contracts.resolve("remote.yaml");
        Files.writeString(file, """
                id: remote
                prompt: {system: "s", user: "{{text}}"}
                variables_schema: {type: object, properties: {text: {type: string}}}
                output_schema: {type: object, properties: {a: {$ref: "http://127.0.0.1:9/a.json"}}}
                """);

        ConfigException error = assertThrows(ConfigException.class, () -> Contracts.load(contracts));

        assertTrue(error.getMessage().startsWith(file + ": contract.output_schema is refused: /properties/a/$ref is "
                + "\"http://127.0.0.1:9/a.json\""), error.getMessage());
    }

    @Test
    void changingTheTemplateChangesTheContractVersion() throws IOException {
        Path a = Files.createDirectory(dir.resolve("a"));
        Path b = Files.createDirectory(dir.resolve("b"));
        String contract = """
                id: c
                prompt: {system: "s", user: "%s {{text}}"}
                variables_schema: {type: object, properties: {text: {type: string}}}
                output_schema: {type: object, properties: {a: {type: string}}}
                """;
        Files.writeString(a.resolve("c.yaml"), contract.formatted("Classify:"));
        Files.writeString(b.resolve("c.yaml"), contract.formatted("Classify this:"));
        assertTrue(!Contracts.load(a).find("c").orElseThrow().version()
                .equals(Contracts.load(b).find("c").orElseThrow().version()));
    }

    @Test
    void durationsAreReadAsUsersWriteThem() {
        assertEquals(Duration.ofMillis(500), ConfigFiles.parseDuration("500ms").orElseThrow());
        assertEquals(Duration.ofMinutes(2), ConfigFiles.parseDuration("2m").orElseThrow());
        assertTrue(ConfigFiles.parseDuration("ten seconds").isEmpty());
    }

    @Test
    void aMappingWithAKeyItDoesNotKnowIsRefusedListingTheKeysItKnows() {
        Path file = Path.of("providers.yaml");
        List<String> keys = List.of("max_attempts", "initial_backoff", "max_backoff");

        ConfigException notAMapping = assertThrows(ConfigException.class, () -> ConfigFiles.requireMappingOf(file,
                Json.parse("3"), "providers[0].retry", keys, "a retry setting", ""));
        ConfigException unknown = assertThrows(ConfigException.class, () -> ConfigFiles.requireMappingOf(file,
                Json.parse("{\"tries\": 3}"), "providers[0].retry", keys, "a retry setting", " (see docs)"));

        assertEquals("providers.yaml: providers[0].retry must be a mapping with max_attempts, initial_backoff and"
                + " max_backoff", notAMapping.getMessage());
        assertEquals("providers.yaml: providers[0].retry.tries is not a retry setting; expected max_attempts,"
                + " initial_backoff or max_backoff (see docs)", unknown.getMessage());
    }
}
