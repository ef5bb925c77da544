package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** large_answer: a valid, storable answer of a requested size, streamed in a bounded number of events, billed. */
class LargeAnswerIT extends SimulatorPerTest {

    private static final int SIZE = 600 * 1024;

    LargeAnswerIT() {
        super(SimulatorConfig.defaults().withName("large-answer-it"));
    }

    @Test
    void anOpenAiLargeAnswerFollowsTheSchemaHasTheSizeAndIsBilledForIt() throws Exception {
        // given
        HttpResponse<String> put = http.control("PUT", "/_sim/behaviour",
                "{\"kind\":\"large_answer\",\"size_bytes\":" + SIZE + "}");

        // when
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody("The battery is great.",
                SimHttp.sentimentSchema()), "big-1");

        // then
        assertEquals(200, put.statusCode(), put.body());
        assertEquals(200, response.statusCode());
        String content = SimHttp.json(response.body()).at("/choices/0/message/content").asText();
        assertAbout(SIZE, content.getBytes(StandardCharsets.UTF_8).length);
        JsonNode answer = SimHttp.json(content);
        assertEquals(List.of(), SchemaCheck.violations(SimHttp.sentimentSchema(), answer));
        assertTrue(answer.at("/tags/0").asText().length() > SIZE / 2, "the padding is in the first free string");
        assertTrue(content.chars().allMatch(c -> c < 128), "ASCII prose, storable anywhere");
        List<BilledRequest> bill = simulator.usageExport();
        assertEquals(1, bill.size());
        assertAbout(SIZE / 4, bill.get(0).outputTokens());
        assertEquals("large_answer", simulator.ledger().get(0).behaviour());
    }

    @Test
    void aStreamedLargeAnswerComesInABoundedNumberOfEventsAndJoinsToTheSameAnswer() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.largeAnswer(SIZE));
        String whole = SimHttp.json(http.openAi(SimHttp.openAiBody("The battery is great.",
                SimHttp.sentimentSchema()), null).body()).at("/choices/0/message/content").asText();

        // when
        HttpResponse<String> response = http.openAi(OpenAiChatStreamIT.streamed(
                SimHttp.openAiBody("The battery is great.", SimHttp.sentimentSchema()), true), null);

        // then
        List<SseBody.Event> events = SseBody.events(response.body());
        assertTrue(events.size() <= 300, events.size() + " events");
        StringBuilder streamed = new StringBuilder();
        for (SseBody.Event event : events.subList(0, events.size() - 1)) {
            streamed.append(event.json().at("/choices/0/delta/content").asText(""));
        }
        assertEquals(whole, streamed.toString());
        JsonNode usage = events.get(events.size() - 2).json().get("usage");
        assertEquals(simulator.usageExport().get(1).outputTokens(), usage.get("completion_tokens").asLong());
    }

    @Test
    void anAnthropicLargeAnswerIsAValidToolInputOfTheSizeAlsoWhenStreamed() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.largeAnswer(SIZE));

        // when
        JsonNode message = SimHttp.json(http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody("Arrived broken.", SimHttp.sentimentSchema()), null).body());
        HttpResponse<String> stream = http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody("Arrived broken.", SimHttp.sentimentSchema()).put("stream", true), null);

        // then
        JsonNode input = message.at("/content/0/input");
        assertEquals("tool_use", message.at("/content/0/type").asText());
        assertEquals(List.of(), SchemaCheck.violations(SimHttp.sentimentSchema(), input));
        assertAbout(SIZE, SimHttp.MAPPER.writeValueAsBytes(input).length);
        assertAbout(SIZE / 4, message.at("/usage/output_tokens").asLong());
        List<SseBody.Event> events = SseBody.events(stream.body());
        assertTrue(events.size() <= 300, events.size() + " events");
        StringBuilder json = new StringBuilder();
        events.stream().filter(event -> "content_block_delta".equals(event.name()))
                .forEach(event -> json.append(event.json().at("/delta/partial_json").asText()));
        assertEquals(input, SimHttp.json(json.toString()));
        assertEquals(2, simulator.usageExport().size());
    }

    @Test
    void anAnthropicStructuredOutputLargeAnswerIsValidJsonTextOfTheSize() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.largeAnswer(SIZE));

        // when
        JsonNode message = SimHttp.json(http.anthropic(SimHttp.ANTHROPIC,
                AnthropicMessagesStreamIT.structuredOutputBody("Arrived broken.", SimHttp.sentimentSchema()), null)
                .body());

        // then
        String text = message.at("/content/0/text").asText();
        assertEquals("text", message.at("/content/0/type").asText());
        assertAbout(SIZE, text.getBytes(StandardCharsets.UTF_8).length);
        assertEquals(List.of(), SchemaCheck.violations(SimHttp.sentimentSchema(), SimHttp.json(text)));
    }

    @Test
    void aFreeTextLargeAnswerIsProseOfTheSize() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.largeAnswer(SIZE));

        // when
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody("Tell me a long story.", null), null);

        // then
        String content = SimHttp.json(response.body()).at("/choices/0/message/content").asText();
        assertAbout(SIZE, content.getBytes(StandardCharsets.UTF_8).length);
        assertTrue(content.startsWith("Here is the simulated answer sim-"), content.substring(0, 60));
        assertFalse(content.contains("{"), "prose, not JSON");
    }

    /** Within 1% of the expected value. */
    private static void assertAbout(long expected, long actual) {
        assertTrue(Math.abs(actual - expected) <= expected / 100, "expected about " + expected + ", was " + actual);
    }
}
