package dev.onejob.core.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ConfigException;
import dev.onejob.core.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/** The built-in passthrough contract: its variables, its prompts, and its output schemas held to the contracts' rule. */
class PassthroughTest {
    private final Contract passthrough = Contracts.load(Path.of("../config/contracts")).find(Passthrough.ID)
            .orElseThrow();

    @Test
    void itIsBuiltInWithGoldenInputsThatCarryTheirOwnSchemas() {
        assertTrue(passthrough.passthrough());
        assertTrue(passthrough.golden().size() >= 2);
        for (Contract.GoldenInput golden : passthrough.golden()) {
            assertEquals(List.of(), passthrough.variableProblems(golden.variables()));
            assertTrue(passthrough.prompt(golden.variables()).structured());
        }
    }

    @Test
    void aCallsPromptIsItsConversationAndParameters() {
        // given
        JsonNode variables = Json.parse("""
                {"system":"Be brief.","messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Yo"},
                 {"role":"user","content":"Again"}],"top_p":0.5,"stop":["END"]}""");

        // when
        Prompt prompt = passthrough.prompt(variables);

        // then free text, the provider's default temperature, the contract's default max_tokens
        assertEquals("Be brief.", prompt.system());
        assertEquals(List.of(new Prompt.Turn("user", "Hi"), new Prompt.Turn("assistant", "Yo"),
                new Prompt.Turn("user", "Again")), prompt.turns());
        assertFalse(prompt.structured());
        assertEquals(null, prompt.temperature());
        assertEquals(0.5, prompt.topP());
        assertEquals(passthrough.maxTokens(), prompt.maxTokens());
        assertEquals(List.of("END"), prompt.stop());
        assertEquals(List.of(), prompt.outputProblems(Json.parse("{\"text\":\"hello\"}")));
        assertEquals(1, prompt.outputProblems(Json.parse("{\"text\":\"hello\",\"more\":1}")).size());
    }

    @Test
    void anOutputSchemaForbidsInventedKeys() {
        // given a schema that does not say additionalProperties
        JsonNode variables = Json.parse("""
                {"messages":[{"role":"user","content":"Hi"}],"output_schema":{"type":"object",
                 "properties":{"mood":{"type":"string"}},"required":["mood"]}}""");

        // when
        Prompt prompt = passthrough.prompt(variables);

        // then an answer with a key the schema does not define breaks the contract
        assertEquals(false, prompt.outputSchema().get("additionalProperties").asBoolean(true));
        assertEquals(List.of(), prompt.outputProblems(Json.parse("{\"mood\":\"fine\"}")));
        assertFalse(prompt.outputProblems(Json.parse("{\"mood\":\"fine\",\"confidence\":1}")).isEmpty());
    }

    @Test
    void aCallersSchemaThatReachesOutsideItselfIsRefusedNamingWhere() {
        List<String> problems = passthrough.variableProblems(Json.parse("""
                {"messages":[{"role":"user","content":"Hi"}],"output_schema":{"type":"object",
                 "properties":{"mood":{"$ref":"http://127.0.0.1:9/mood.json"}}}}"""));

        assertEquals(List.of("output_schema is refused: /properties/mood/$ref is \"http://127.0.0.1:9/mood.json\": "
                + "only references inside this schema are allowed (\"#/$defs/name\", \"#/properties/name\", "
                + "\"#anchor\"); onejob never fetches a schema"), problems);
    }

    @Test
    void aSchemaThatAllowsExtraKeysOrIsNoObjectIsRefused() {
        List<String> open = passthrough.variableProblems(Json.parse("""
                {"messages":[{"role":"user","content":"Hi"}],"output_schema":{"type":"object",
                 "additionalProperties":true}}"""));
        List<String> array = passthrough.variableProblems(Json.parse("""
                {"messages":[{"role":"user","content":"Hi"}],"output_schema":{"type":"array"}}"""));
        List<String> noMessages = passthrough.variableProblems(Json.parse("{\"messages\":[]}"));

        assertTrue(open.get(0).contains("additionalProperties must be false"), open.toString());
        assertTrue(array.get(0).contains("type: object"), array.toString());
        assertEquals(1, noMessages.size(), noMessages.toString());
    }

    @Test
    void aContractsFileMayNotTakeTheBuiltInId() throws Exception {
        Path dir = Files.createTempDirectory("contracts");
        Files.writeString(dir.resolve("mine.yaml"), Files.readString(
                Path.of("../config/contracts/sentiment.yaml")).replace("id: sentiment", "id: passthrough"));

        var refused = Assertions.assertThrows(ConfigException.class,
                () -> Contracts.load(dir));

        assertTrue(refused.getMessage().contains("built-in passthrough"), refused.getMessage());
    }
}
