package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code "stream": true} on {@code /v1/chat/completions}: framing, content, usage, ledger and behaviours. */
class OpenAiChatStreamIT extends SimulatorPerTest {

    private static final String REVIEW = "The battery is great and the screen is bright. Positive!";

    OpenAiChatStreamIT() {
        super(SimulatorConfig.defaults().withName("openai-stream-it").withApiKey("sk-test"));
    }

    static ObjectNode streamed(ObjectNode body, boolean includeUsage) {
        body.put("stream", true);
        if (includeUsage) {
            body.putObject("stream_options").put("include_usage", true);
        }
        return body;
    }

    @Test
    void streamsChunksWhoseContentAndUsageAreThoseOfTheNonStreamedAnswer() throws Exception {
        // given the same request answered whole
        JsonNode whole = SimHttp.json(http.openAi(SimHttp.openAiBody(REVIEW, SimHttp.sentimentSchema()), null).body());

        // when
        HttpResponse<String> response = http.openAi(
                streamed(SimHttp.openAiBody(REVIEW, SimHttp.sentimentSchema()), true), null);

        // then
        assertEquals(200, response.statusCode());
        assertEquals(EventStream.CONTENT_TYPE, response.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(response.headers().firstValue("x-request-id").orElseThrow().startsWith("req_"));
        List<SseBody.Event> events = SseBody.events(response.body());
        assertEquals(new SseBody.Event(null, "[DONE]"), events.get(events.size() - 1));
        List<JsonNode> chunks = events.subList(0, events.size() - 1).stream().map(SseBody.Event::json).toList();
        String id = chunks.get(0).get("id").asText();
        assertTrue(id.startsWith("chatcmpl-"));
        for (JsonNode chunk : chunks) {
            assertEquals(id, chunk.get("id").asText());
            assertEquals("chat.completion.chunk", chunk.get("object").asText());
            assertTrue(chunk.get("created").isIntegralNumber());
            assertEquals("gpt-4o-mini", chunk.get("model").asText());
        }
        JsonNode usageChunk = chunks.get(chunks.size() - 1);
        assertEquals(0, usageChunk.get("choices").size());
        assertEquals(whole.get("usage"), usageChunk.get("usage"));
        List<JsonNode> choiceChunks = chunks.subList(0, chunks.size() - 1);
        assertTrue(choiceChunks.size() >= 5, "several content chunks, was " + choiceChunks.size());
        StringBuilder content = new StringBuilder();
        for (int i = 0; i < choiceChunks.size(); i++) {
            JsonNode chunk = choiceChunks.get(i);
            assertTrue(chunk.get("usage").isNull(), "usage null before the usage chunk");
            JsonNode choice = chunk.at("/choices/0");
            assertEquals(0, choice.get("index").asInt());
            assertTrue(choice.get("logprobs").isNull());
            boolean last = i == choiceChunks.size() - 1;
            if (last) {
                assertEquals("stop", choice.get("finish_reason").asText());
            } else {
                assertTrue(choice.get("finish_reason").isNull());
            }
            if (i == 0) {
                assertEquals("assistant", choice.at("/delta/role").asText());
                assertEquals("", choice.at("/delta/content").asText());
            } else if (last) {
                assertEquals(0, choice.get("delta").size());
            } else {
                assertFalse(choice.at("/delta/content").asText().isEmpty());
                content.append(choice.at("/delta/content").asText());
            }
        }
        assertEquals(whole.at("/choices/0/message/content").asText(), content.toString());
        assertEquals(List.of(), SchemaCheck.violations(SimHttp.sentimentSchema(), SimHttp.json(content.toString())));
    }

    @Test
    void withoutIncludeUsageNoChunkCarriesUsage() throws Exception {
        // when
        HttpResponse<String> response = http.openAi(streamed(SimHttp.openAiBody(REVIEW, null), false), null);

        // then
        List<SseBody.Event> events = SseBody.events(response.body());
        assertEquals("[DONE]", events.get(events.size() - 1).data());
        for (SseBody.Event event : events.subList(0, events.size() - 1)) {
            assertFalse(event.json().has("usage"), event.data());
            assertEquals(1, event.json().get("choices").size());
        }
        assertEquals("stop", events.get(events.size() - 2).json().at("/choices/0/finish_reason").asText());
    }

    @Test
    void aStreamedCallIsLedgeredAndBilledExactlyLikeANonStreamedOne() throws Exception {
        // when
        http.openAi(SimHttp.openAiBody(REVIEW, SimHttp.sentimentSchema()), "whole");
        http.openAi(streamed(SimHttp.openAiBody(REVIEW, SimHttp.sentimentSchema()), true), "streamed");

        // then
        List<LedgerEntry> ledger = simulator.ledger();
        assertEquals(2, ledger.size());
        LedgerEntry whole = ledger.get(0);
        LedgerEntry stream = ledger.get(1);
        assertEquals("streamed", stream.idempotencyKey());
        assertEquals("answer", stream.behaviour());
        assertEquals(200, stream.status());
        assertTrue(stream.isBilled());
        assertEquals(whole.inputTokens(), stream.inputTokens());
        assertEquals(whole.outputTokens(), stream.outputTokens());
        assertEquals(whole.costUsd(), stream.costUsd());
        assertEquals(2, simulator.usageExport().size());
    }

    static Stream<Behaviour> contentBehaviours() {
        return Stream.of(Behaviour.malformedJson(), Behaviour.ignoreFormat(), Behaviour.inventKey("confidence"),
                Behaviour.dropField(null, 1), Behaviour.mangleNonAscii(), Behaviour.poisonAnswer("nul"),
                Behaviour.poisonAnswer("lone_surrogate"));
    }

    @ParameterizedTest
    @MethodSource("contentBehaviours")
    void contentBehavioursShapeTheStreamedTextAsTheyShapeTheWholeAnswer(Behaviour behaviour) throws Exception {
        // given
        simulator.setDefaultBehaviour(behaviour);
        String whole = SimHttp.json(http.openAi(SimHttp.openAiBody("Très bien " + REVIEW, SimHttp.sentimentSchema()),
                null).body()).at("/choices/0/message/content").asText();

        // when
        HttpResponse<String> response = http.openAi(
                streamed(SimHttp.openAiBody("Très bien " + REVIEW, SimHttp.sentimentSchema()), false), null);

        // then
        StringBuilder content = new StringBuilder();
        List<SseBody.Event> events = SseBody.events(response.body());
        events.subList(0, events.size() - 1)
                .forEach(event -> content.append(event.json().at("/choices/0/delta/content").asText("")));
        assertEquals(whole, content.toString());
        assertEquals(behaviour.kind(), simulator.ledger().get(1).behaviour());
    }

    @Test
    void anErrorStatusIsTheJsonErrorNotAStream() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.status(429, 5));

        // when
        HttpResponse<String> response = http.openAi(streamed(SimHttp.openAiBody(REVIEW, null), true), null);

        // then
        assertEquals(429, response.statusCode());
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElseThrow());
        assertEquals("5", response.headers().firstValue("Retry-After").orElseThrow());
        assertEquals("rate_limit_exceeded", SimHttp.json(response.body()).at("/error/code").asText());
        assertFalse(simulator.ledger().get(0).isBilled());
    }

    @Test
    void streamOptionsWithoutStreamIsABadRequest() throws Exception {
        // given
        ObjectNode body = SimHttp.openAiBody(REVIEW, null);
        body.putObject("stream_options").put("include_usage", true);

        // when
        HttpResponse<String> response = http.openAi(body, null);

        // then
        assertEquals(400, response.statusCode());
        assertTrue(SimHttp.json(response.body()).at("/error/message").asText().contains("stream_options"));
    }

    @Test
    void aStreamFlagThatIsNotABooleanIsABadRequest() throws Exception {
        // when
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody(REVIEW, null).put("stream", "yes"), null);

        // then
        assertEquals(400, response.statusCode());
        assertEquals(LedgerEntry.REJECTED, simulator.ledger().get(0).behaviour());
    }
}
