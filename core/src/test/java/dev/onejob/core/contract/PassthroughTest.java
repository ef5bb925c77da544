package dev.onejob.core.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ConfigException;
import dev.onejob.core.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
    void toolCallingIsCertifiedAgainstItsOwnBuiltInContractOverTheSameVariables() {
        Contract tools = Contracts.load(Path.of("../config/contracts")).find(Passthrough.TOOLS_ID).orElseThrow();

        assertTrue(tools.passthrough());
        assertEquals(passthrough.variablesSchema(), tools.variablesSchema());
        assertNotEquals(passthrough.version(), tools.version());
        for (Contract.GoldenInput golden : tools.golden()) {
            assertEquals(List.of(), tools.variableProblems(golden.variables()));
            assertTrue(golden.variables().has("tools") && golden.expect().has("tool"), golden.toString());
        }
        JsonNode withTools = Json.parse("{\"tools\":[]}");
        assertEquals(Passthrough.TOOLS_ID, Passthrough.certifiedAs(Passthrough.ID, withTools));
        assertEquals(Passthrough.ID, Passthrough.certifiedAs(Passthrough.ID, Json.object()));
        assertEquals("sentiment", Passthrough.certifiedAs("sentiment", withTools));
    }

    @Test
    void anAnswerMayCallOnlyTheToolsTheCallOffered() {
        // given a call offering one tool
        JsonNode variables = Json.parse("""
                {"messages":[{"role":"user","content":"Weather?"}],"tools":[{"name":"get_weather",
                 "parameters":{"type":"object"}}],"tool_choice":{"type":"auto"}}""");
        Prompt prompt = passthrough.prompt(variables);

        // then a call of it is an answer; an invented tool, a call without an id or arguments is not
        assertEquals(List.of(), passthrough.variableProblems(variables));
        assertEquals(List.of(), prompt.outputProblems(Json.parse("""
                {"text":"","tool_calls":[{"id":"c1","name":"get_weather","arguments":{"city":"Oslo"}}]}""")));
        assertEquals(1, prompt.outputProblems(Json.parse("""
                {"text":"","tool_calls":[{"id":"c1","name":"launch_rocket","arguments":{}}]}""")).size());
        assertEquals(2, prompt.outputProblems(Json.parse("""
                {"text":"","tool_calls":[{"name":"get_weather","arguments":"{}"}]}""")).size());
        // and a call without tools cannot be answered with tool calls
        assertEquals(1, passthrough.prompt(Json.parse("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"))
                .outputProblems(Json.parse("{\"text\":\"\",\"tool_calls\":[]}")).size());
    }

    @Test
    void toolsThatDoNotFitTogetherAreRefusedByName() {
        JsonNode variables = Json.parse("""
                {"messages":[{"role":"user","content":"x","tool_call_id":"c1"},{"role":"tool","content":"y"}],
                 "tools":[{"name":"a","parameters":{"type":"object"}},{"name":"a","parameters":{"type":"object"}}],
                 "tool_choice":{"type":"tool","name":"b"},"output_schema":{"type":"object"}}""");

        String all = String.join("\n", passthrough.variableProblems(variables));

        for (String named : List.of("declared twice", "response format together", "'b', which is not among",
                "messages[0]", "messages[1]")) {
            assertTrue(all.contains(named), named + " in " + all);
        }
    }

    @Test
    void theCallersSchemaAndStrictFlagAreHonouredAsGiven() {
        // given a schema that does not close its top level, and one that closes a nested object
        JsonNode open = Json.parse("""
                {"messages":[{"role":"user","content":"Hi"}],"output_schema":{"type":"object",
                 "properties":{"mood":{"type":"string"}},"required":["mood"]}}""");
        JsonNode nested = Json.parse("""
                {"messages":[{"role":"user","content":"Hi"}],"schema_strict":true,"output_schema":{"type":"object",
                 "additionalProperties":false,"required":["mood"],"properties":{"mood":{"type":"object",
                 "additionalProperties":false,"required":["word"],"properties":{"word":{"type":"string"}}}}}}""");

        // when
        Prompt prompt = passthrough.prompt(open);
        Prompt strict = passthrough.prompt(nested);

        // then the schema is the caller's, to the letter, and onejob checks answers against exactly it
        assertEquals(open.get("output_schema"), prompt.outputSchema());
        assertEquals(null, prompt.strict());
        assertEquals(List.of(), prompt.outputProblems(Json.parse("{\"mood\":\"fine\",\"confidence\":1}")));
        assertFalse(prompt.outputProblems(Json.parse("{\"confidence\":1}")).isEmpty());
        assertEquals(nested.get("output_schema"), strict.outputSchema());
        assertEquals(Boolean.TRUE, strict.strict());
        assertEquals(List.of(), strict.outputProblems(Json.parse("{\"mood\":{\"word\":\"fine\"}}")));
        assertFalse(strict.outputProblems(Json.parse("{\"mood\":{\"word\":\"fine\",\"x\":1}}")).isEmpty());
    }

    @Test
    void aUsersImagesArePartsInOrderAndEachReservesItsAllowance() {
        // given a user message showing two images between texts
        JsonNode variables = Json.parse("""
                {"messages":[{"role":"user","content":[{"type":"text","text":"Compare"},
                  {"type":"image","url":"https://example.com/a.png","detail":"high"},{"type":"text","text":"with"},
                  {"type":"image","url":"data:image/png;base64,iVBORw0KGgo="}]}]}""");

        // when
        Prompt prompt = passthrough.prompt(variables);

        // then the turn keeps them in order, its text is the texts alone, and each image reserves its allowance
        assertEquals(List.of(), passthrough.variableProblems(variables));
        Prompt.Turn turn = prompt.turns().get(0);
        assertEquals(List.of(Prompt.Part.text("Compare"), Prompt.Part.image("https://example.com/a.png", "high"),
                Prompt.Part.text("with"), Prompt.Part.image("data:image/png;base64,iVBORw0KGgo=", null)),
                turn.parts());
        assertEquals("Compare\nwith", turn.text());
        JsonNode textOnly = Json.parse("{\"messages\":[{\"role\":\"user\",\"content\":\"Compare\\nwith\"}]}");
        assertEquals(2 * dev.onejob.core.billing.JobCost.IMAGE_TOKENS,
                dev.onejob.core.billing.JobCost.inputBound(passthrough, variables)
                        - dev.onejob.core.billing.JobCost.inputBound(passthrough, textOnly));

        // and an image anywhere but a user message, or a URL of another kind, is refused
        List<String> assistant = passthrough.variableProblems(Json.parse("""
                {"messages":[{"role":"user","content":"Hi"},
                  {"role":"assistant","content":[{"type":"text","text":"x"}]}]}"""));
        assertTrue(String.join("\n", assistant).contains("only a user message shows images"), assistant.toString());
        List<String> file = passthrough.variableProblems(Json.parse("""
                {"messages":[{"role":"user","content":[{"type":"image","url":"file:///etc/passwd"}]}]}"""));
        assertTrue(String.join("\n", file).contains("url: does not match"), file.toString());
    }

    @Test
    void aJsonObjectCallAsksForAnyObjectAndMustSayJson() {
        // given a call asking for any JSON object
        JsonNode variables = Json.parse("""
                {"system":"Answer in JSON.","messages":[{"role":"user","content":"Hi"}],"json_object":true}""");

        // when
        Prompt prompt = passthrough.prompt(variables);

        // then any object is an answer, and nothing else is
        assertEquals(List.of(), passthrough.variableProblems(variables));
        assertTrue(prompt.jsonObject() && prompt.structured());
        assertEquals(List.of(), prompt.outputProblems(Json.parse("{\"mood\":\"fine\",\"n\":[1]}")));
        assertEquals(1, prompt.outputProblems(Json.parse("[1]")).size());

        // and a call that does not say JSON, or that also has a schema or tools, is refused by name
        String refused = String.join("\n", passthrough.variableProblems(Json.parse("""
                {"messages":[{"role":"user","content":"Hi"}],"json_object":true,"output_schema":{"type":"object"},
                 "tools":[{"name":"t","parameters":{"type":"object"}}]}""")));
        for (String named : List.of("the word 'JSON'", "it has no output schema", "tools and a json_object")) {
            assertTrue(refused.contains(named), named + " in " + refused);
        }
        // and only the texts count: an image's base64 that happens to spell it says nothing
        List<String> imageOnly = passthrough.variableProblems(Json.parse("""
                {"messages":[{"role":"user","content":[{"type":"text","text":"Describe it"},
                  {"type":"image","url":"data:image/png;base64,jsonAAAA"}]}],"json_object":true}"""));
        assertTrue(String.join("\n", imageOnly).contains("the word 'JSON'"), imageOnly.toString());
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
    void aSchemaThatIsNoObjectOrAStrictFlagWithoutASchemaIsRefused() {
        List<String> array = passthrough.variableProblems(Json.parse("""
                {"messages":[{"role":"user","content":"Hi"}],"output_schema":{"type":"array"}}"""));
        List<String> strictAlone = passthrough.variableProblems(Json.parse("""
                {"messages":[{"role":"user","content":"Hi"}],"schema_strict":true}"""));
        List<String> noMessages = passthrough.variableProblems(Json.parse("{\"messages\":[]}"));

        assertTrue(array.get(0).contains("type: object"), array.toString());
        assertTrue(strictAlone.get(0).contains("schema_strict needs an output schema"), strictAlone.toString());
        assertEquals(1, noMessages.size(), noMessages.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {Passthrough.ID, Passthrough.TOOLS_ID})
    void aContractsFileMayNotTakeABuiltInId(String id) throws Exception {
        Path dir = Files.createTempDirectory("contracts");
        Files.writeString(dir.resolve("mine.yaml"), Files.readString(
                Path.of("../config/contracts/sentiment.yaml")).replace("id: sentiment", "id: " + id));

        var refused = Assertions.assertThrows(ConfigException.class,
                () -> Contracts.load(dir));

        assertTrue(refused.getMessage().contains("contract id '" + id + "' is a built-in contract"),
                refused.getMessage());
    }
}
