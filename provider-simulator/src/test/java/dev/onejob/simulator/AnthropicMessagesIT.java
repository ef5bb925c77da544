package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AnthropicMessagesIT extends SimulatorPerTest {

    private static final String REVIEW = "Arrived broken. Negative experience overall.";

    AnthropicMessagesIT() {
        super(SimulatorConfig.defaults().withName("anthropic-it").withApiKey("sk-test"));
    }

    @Test
    void answersWithOneToolUseBlockWhoseInputFollowsTheSchema() throws Exception {
        // when
        HttpResponse<String> response = http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema()), "k1");

        // then
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("request-id").orElseThrow().startsWith("req_"));
        JsonNode body = SimHttp.json(response.body());
        assertTrue(body.get("id").asText().startsWith("msg_"));
        assertEquals("message", body.get("type").asText());
        assertEquals("assistant", body.get("role").asText());
        assertEquals("claude-sonnet-4-5", body.get("model").asText());
        assertEquals("tool_use", body.get("stop_reason").asText());
        assertTrue(body.get("stop_sequence").isNull());
        assertEquals(1, body.get("content").size());
        JsonNode block = body.at("/content/0");
        assertEquals("tool_use", block.get("type").asText());
        assertTrue(block.get("id").asText().startsWith("toolu_"));
        assertEquals("record_review", block.get("name").asText());
        assertEquals(List.of(), SchemaCheck.violations(SimHttp.sentimentSchema(), block.get("input")));
        assertEquals("negative", block.at("/input/sentiment").asText());
        assertTrue(body.at("/usage/input_tokens").asLong() > 0 && body.at("/usage/output_tokens").asLong() > 0);
    }

    @Test
    void toolChoiceSelectsWhichToolsSchemaIsAnswered() throws Exception {
        // given a request with two tools, naming the second
        ObjectNode body = SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema());
        body.withArray("tools").addObject().put("name", "flag").set("input_schema", SimHttp.json(
                "{\"type\":\"object\",\"properties\":{\"flag\":{\"type\":\"boolean\"}},\"required\":[\"flag\"]}"));
        body.putObject("tool_choice").put("type", "tool").put("name", "flag");

        // when
        JsonNode block = SimHttp.json(http.anthropic(SimHttp.ANTHROPIC, body, null).body()).at("/content/0");

        // then
        assertEquals("flag", block.get("name").asText());
        assertTrue(block.at("/input/flag").isBoolean());
        assertEquals(1, block.get("input").size());
    }

    @Test
    void sameRequestTwiceGetsTheSameToolInput() throws Exception {
        // when
        JsonNode first = SimHttp.json(http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema()), null).body());
        JsonNode second = SimHttp.json(http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema()), null).body());

        // then
        assertEquals(first.at("/content/0/input"), second.at("/content/0/input"));
    }

    @Test
    void missingAnthropicVersionHeaderIsABadRequest() throws Exception {
        // given
        var request = http.post(SimHttp.ANTHROPIC, SimHttp.anthropicBody(REVIEW, null), null)
                .header("x-api-key", "sk-test").build();

        // when
        HttpResponse<String> response = http.send(request);

        // then
        assertEquals(400, response.statusCode());
        JsonNode body = SimHttp.json(response.body());
        assertEquals("error", body.get("type").asText());
        assertEquals("invalid_request_error", body.at("/error/type").asText());
        assertTrue(body.at("/error/message").asText().contains("anthropic-version"));
    }

    @Test
    void wrongApiKeyIsAnAuthenticationError() throws Exception {
        // when
        HttpResponse<String> response = http.withApiKey("sk-wrong")
                .anthropic(SimHttp.ANTHROPIC, SimHttp.anthropicBody(REVIEW, null), null);

        // then
        assertEquals(401, response.statusCode());
        assertEquals("authentication_error", SimHttp.json(response.body()).at("/error/type").asText());
    }

    @ParameterizedTest
    @CsvSource({"sk-test,200", "sk-wrong,401"})
    void theKeyMayComeAsABearerTokenAsTheOfficialSdkSendsIt(String key, int status) throws Exception {
        // given
        var request = http.post(SimHttp.ANTHROPIC, SimHttp.anthropicBody(REVIEW, null), null)
                .header("Authorization", "Bearer " + key).header("anthropic-version", "2023-06-01").build();

        // when
        HttpResponse<String> response = http.send(request);

        // then
        assertEquals(status, response.statusCode());
    }

    @ParameterizedTest
    @CsvSource({"429,rate_limit_error", "500,api_error", "503,overloaded_error", "529,overloaded_error",
        "504,timeout_error", "408,timeout_error"})
    void statusBehaviourAnswersAnAnthropicErrorWithRetryAfter(int status, String type) throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.status(status, 2));

        // when
        HttpResponse<String> response = http.anthropic(SimHttp.ANTHROPIC, SimHttp.anthropicBody(REVIEW, null), null);

        // then
        assertEquals(status, response.statusCode());
        assertEquals("2", response.headers().firstValue("retry-after").orElseThrow());
        JsonNode body = SimHttp.json(response.body());
        assertEquals("error", body.get("type").asText());
        assertEquals(type, body.at("/error/type").asText());
        assertFalse(body.at("/error/message").asText().isBlank());
    }

    @Test
    void malformedJsonIsATextBlockWhoseTextDoesNotParse() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.malformedJson());

        // when
        JsonNode body = SimHttp.json(http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema()), null).body());

        // then
        assertEquals("end_turn", body.get("stop_reason").asText());
        assertEquals("text", body.at("/content/0/type").asText());
        String text = body.at("/content/0/text").asText();
        assertTrue(text.startsWith("{\"sentiment\":\"negative\""), text);
        assertThrows(JsonProcessingException.class, () -> SimHttp.MAPPER.readTree(text));
    }

    @Test
    void ignoreFormatIsProseWithoutToolUse() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.ignoreFormat());

        // when
        JsonNode body = SimHttp.json(http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema()), null).body());

        // then
        assertEquals(1, body.get("content").size());
        assertEquals("text", body.at("/content/0/type").asText());
        assertEquals("Sure! The sentiment is negative.", body.at("/content/0/text").asText());
    }

    @Test
    void inventKeyAddsAKeyToTheToolInput() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.inventKey("reasoning"));

        // when
        JsonNode input = SimHttp.json(http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema()), null).body()).at("/content/0/input");

        // then
        assertEquals(List.of("$: extra key reasoning"), SchemaCheck.violations(SimHttp.sentimentSchema(), input));
    }

    @Test
    void countTokensIsDeterministicAndFollowsTheDocumentedFormula() throws Exception {
        // given
        ObjectNode body = SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema());
        body.remove("max_tokens");
        String counted = "Classify the review.\n" + REVIEW + body.get("tools").toString();
        long expected = (counted.getBytes(StandardCharsets.UTF_8).length + 3) / 4;

        // when
        HttpResponse<String> first = http.anthropic(SimHttp.COUNT_TOKENS, body, null);
        HttpResponse<String> second = http.anthropic(SimHttp.COUNT_TOKENS, body, null);

        // then
        assertEquals(200, first.statusCode());
        assertEquals(expected, SimHttp.json(first.body()).get("input_tokens").asLong());
        assertEquals(first.body(), second.body());
        assertEquals("anthropic-count-tokens", simulator.ledger().get(0).protocol());
    }

    @Test
    void tokenCountAdjustmentMakesAPromptOverflowAndBehavioursDoNotApply() throws Exception {
        // given
        ObjectNode body = SimHttp.anthropicBody(REVIEW, null);
        long plain = SimHttp.json(http.anthropic(SimHttp.COUNT_TOKENS, body, null).body()).get("input_tokens").asLong();
        simulator.setTokenCountAdjustment(1.0, 200_000);
        simulator.setDefaultBehaviour(Behaviour.status(500));

        // when
        HttpResponse<String> response = http.anthropic(SimHttp.COUNT_TOKENS, body, null);

        // then
        assertEquals(200, response.statusCode());
        assertEquals(plain + 200_000, SimHttp.json(response.body()).get("input_tokens").asLong());
    }
}
