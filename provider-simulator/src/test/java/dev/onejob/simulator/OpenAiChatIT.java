package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OpenAiChatIT extends SimulatorPerTest {

    private static final String REVIEW = "The battery is great and the screen is positive-ly bright. Positive!";

    OpenAiChatIT() {
        super(SimulatorConfig.defaults().withName("openai-it").withApiKey("sk-test"));
    }

    @Test
    void answersInChatCompletionShapeWithContentFollowingTheSchema() throws Exception {
        // when
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody(REVIEW, SimHttp.sentimentSchema()), "k1");

        // then
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("x-request-id").orElseThrow().matches("req_[0-9a-f]{24}"));
        JsonNode body = SimHttp.json(response.body());
        assertTrue(body.get("id").asText().startsWith("chatcmpl-"));
        assertEquals("chat.completion", body.get("object").asText());
        assertTrue(body.get("created").isIntegralNumber());
        assertEquals("gpt-4o-mini", body.get("model").asText());
        assertEquals("assistant", body.at("/choices/0/message/role").asText());
        assertEquals("stop", body.at("/choices/0/finish_reason").asText());
        long prompt = body.at("/usage/prompt_tokens").asLong();
        long completion = body.at("/usage/completion_tokens").asLong();
        assertTrue(prompt > 0 && completion > 0);
        assertEquals(prompt + completion, body.at("/usage/total_tokens").asLong());
        JsonNode answer = SimHttp.openAiAnswer(response);
        assertEquals(List.of(), SchemaCheck.violations(SimHttp.sentimentSchema(), answer));
        assertEquals("positive", answer.get("sentiment").asText());
    }

    @Test
    void sameRequestTwiceGetsTheSameAnswerButFreshIds() throws Exception {
        // when
        HttpResponse<String> first = http.openAi(SimHttp.openAiBody(REVIEW, SimHttp.sentimentSchema()), "k1");
        HttpResponse<String> second = http.openAi(SimHttp.openAiBody(REVIEW, SimHttp.sentimentSchema()), "k1");

        // then
        assertEquals(SimHttp.openAiAnswer(first), SimHttp.openAiAnswer(second));
        assertNotEquals(SimHttp.json(first.body()).get("id"), SimHttp.json(second.body()).get("id"));
    }

    @Test
    void requestWithoutSchemaGetsProseAsContent() throws Exception {
        // when
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody("Say hi", null), null);

        // then
        assertEquals(200, response.statusCode());
        String content = SimHttp.json(response.body()).at("/choices/0/message/content").asText();
        assertTrue(content.startsWith("Here is the simulated answer sim-"), content);
        assertFalse(content.startsWith("{"), "free text is prose, not JSON: " + content);
    }

    @Test
    void requestWithoutMessagesIsABadRequestInOpenAiShape() throws Exception {
        // given
        var body = SimHttp.openAiBody(REVIEW, null);
        body.remove("messages");

        // when
        HttpResponse<String> response = http.openAi(body, null);

        // then
        assertEquals(400, response.statusCode());
        assertEquals("invalid_request_error", SimHttp.json(response.body()).at("/error/type").asText());
        assertEquals(LedgerEntry.REJECTED, simulator.ledger().get(0).behaviour());
    }

    @ParameterizedTest
    @ValueSource(ints = {408, 429, 500, 501, 502, 503, 504})
    void statusBehaviourAnswersAnOpenAiErrorWithRetryAfter(int status) throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.status(status, 7));

        // when
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody(REVIEW, SimHttp.sentimentSchema()), null);

        // then
        assertEquals(status, response.statusCode());
        assertEquals("7", response.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(response.headers().firstValue("x-request-id").isPresent());
        JsonNode error = SimHttp.json(response.body()).get("error");
        assertFalse(error.get("message").asText().isBlank());
        String expectedType = switch (status) {
            case 429 -> "requests";
            case 408, 504 -> "timeout";
            default -> "server_error";
        };
        assertEquals(expectedType, error.get("type").asText());
        assertTrue(error.has("param") && error.get("param").isNull());
        assertTrue(error.get("code").isTextual());
        assertEquals(status, simulator.ledger().get(0).status());
    }

    @Test
    void malformedJsonIsContentThatDoesNotParse() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.malformedJson());

        // when
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody(REVIEW, SimHttp.sentimentSchema()), null);

        // then
        assertEquals(200, response.statusCode());
        String content = SimHttp.json(response.body()).at("/choices/0/message/content").asText();
        assertTrue(content.startsWith("{\"sentiment\":\"positive\""), content);
        assertThrows(JsonProcessingException.class, () -> SimHttp.MAPPER.readTree(content));
    }

    @Test
    void inventKeyAddsOneTopLevelKeyTheSchemaDoesNotAllow() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.inventKey("confidence"));

        // when
        JsonNode answer = SimHttp.openAiAnswer(
                http.openAi(SimHttp.openAiBody(REVIEW, SimHttp.sentimentSchema()), null));

        // then
        assertEquals(List.of("$: extra key confidence"), SchemaCheck.violations(SimHttp.sentimentSchema(), answer));
    }

    @Test
    void dropFieldEveryThirdDropsTheFirstRequiredFieldOnTheThirdAndSixthRequest() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.dropField(null, 3));
        List<Integer> damaged = new ArrayList<>();

        // when
        for (int request = 1; request <= 7; request++) {
            JsonNode answer = SimHttp.openAiAnswer(
                    http.openAi(SimHttp.openAiBody(REVIEW + request, SimHttp.sentimentSchema()), "attempt-" + request));
            List<String> violations = SchemaCheck.violations(SimHttp.sentimentSchema(), answer);
            if (!violations.isEmpty()) {
                assertEquals(List.of("$: missing required sentiment"), violations);
                damaged.add(request);
            }
        }

        // then
        assertEquals(List.of(3, 6), damaged);
        assertEquals(List.of("answer", "answer", "drop_field", "answer", "answer", "drop_field", "answer"),
                simulator.ledger().stream().map(LedgerEntry::behaviour).toList());
    }

    @Test
    void dropFieldCanNameTheField() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.dropField("score", 1));

        // when
        JsonNode answer = SimHttp.openAiAnswer(
                http.openAi(SimHttp.openAiBody(REVIEW, SimHttp.sentimentSchema()), null));

        // then
        assertEquals(List.of("$: missing required score"), SchemaCheck.violations(SimHttp.sentimentSchema(), answer));
    }

    @Test
    void ignoreFormatAnswersProseInsteadOfJson() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.ignoreFormat());

        // when
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody(REVIEW, SimHttp.sentimentSchema()), null);

        // then
        assertEquals(200, response.statusCode());
        assertEquals("Sure! The sentiment is positive.",
                SimHttp.json(response.body()).at("/choices/0/message/content").asText());
    }

    @Test
    void mangleNonAsciiEchoesThePromptWithQuestionMarksForNonAsciiCharacters() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.mangleNonAscii());
        var schema = SimHttp.json("""
                {"type":"object","properties":{
                  "sentiment":{"type":"string","enum":["positive","negative"]},
                  "quote":{"type":"string"}},
                 "required":["sentiment","quote"],"additionalProperties":false}""");

        // when
        JsonNode answer = SimHttp.openAiAnswer(
                http.openAi(SimHttp.openAiBody("Très bien, 東京 😀 positive", schema), null));

        // then
        assertEquals("Tr?s bien, ?? ? positive", answer.get("quote").asText());
        assertEquals("positive", answer.get("sentiment").asText());
    }

    @Test
    void customAnswerFunctionReplacesTheGeneratedAnswer() throws Exception {
        // given
        simulator.close();
        simulator = ProviderSimulator.start(SimulatorConfig.defaults()
                .withAnswerFunction(request -> SimHttp.MAPPER.createObjectNode().put("echo", request.userText())));
        http = new SimHttp(simulator);

        // when
        JsonNode answer = SimHttp.openAiAnswer(http.openAi(SimHttp.openAiBody("hello there", null), null));

        // then
        assertEquals("hello there", answer.get("echo").asText());
    }
}
