package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code "stream": true} on {@code /v1/messages}, and structured output through {@code output_config}, whole and
 * streamed.
 */
class AnthropicMessagesStreamIT extends SimulatorPerTest {

    private static final String REVIEW = "Arrived broken. Negative experience overall.";

    AnthropicMessagesStreamIT() {
        super(SimulatorConfig.defaults().withName("anthropic-stream-it").withApiKey("sk-test"));
    }

    /** A request for structured output: no tool, the schema in {@code output_config.format}. */
    static ObjectNode structuredOutputBody(String review, JsonNode schema) {
        ObjectNode body = SimHttp.anthropicBody(review, null);
        body.putObject("output_config").putObject("format").put("type", "json_schema").set("schema", schema);
        return body;
    }

    @Test
    void streamsNamedEventsWhoseToolInputAndUsageAreThoseOfTheNonStreamedAnswer() throws Exception {
        // given the same request answered whole
        JsonNode whole = SimHttp.json(http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema()), null).body());

        // when
        HttpResponse<String> response = http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema()).put("stream", true), null);

        // then
        assertEquals(200, response.statusCode());
        assertEquals(EventStream.CONTENT_TYPE, response.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(response.headers().firstValue("request-id").orElseThrow().startsWith("req_"));
        List<SseBody.Event> events = SseBody.events(response.body());
        for (SseBody.Event event : events) {
            assertEquals(event.name(), event.json().get("type").asText(), "data type is the event name");
        }
        assertEquals(List.of("message_start", "ping", "content_block_start"), names(events.subList(0, 3)));
        assertEquals(List.of("content_block_stop", "message_delta", "message_stop"),
                names(events.subList(events.size() - 3, events.size())));
        List<SseBody.Event> deltas = events.subList(3, events.size() - 3);
        assertTrue(deltas.size() >= 5, "several deltas, was " + deltas.size());

        JsonNode start = events.get(0).json().get("message");
        assertTrue(start.get("id").asText().startsWith("msg_"));
        assertEquals("message", start.get("type").asText());
        assertEquals("assistant", start.get("role").asText());
        assertEquals("claude-sonnet-4-5", start.get("model").asText());
        assertEquals(0, start.get("content").size());
        assertTrue(start.get("stop_reason").isNull() && start.get("stop_sequence").isNull());
        assertEquals(whole.at("/usage/input_tokens"), start.at("/usage/input_tokens"));
        assertEquals(0, start.at("/usage/cache_read_input_tokens").asLong());
        assertEquals(1, start.at("/usage/output_tokens").asLong());

        JsonNode block = events.get(2).json();
        assertEquals(0, block.get("index").asInt());
        assertEquals("tool_use", block.at("/content_block/type").asText());
        assertTrue(block.at("/content_block/id").asText().startsWith("toolu_"));
        assertEquals("record_review", block.at("/content_block/name").asText());
        assertEquals(SimHttp.MAPPER.createObjectNode(), block.at("/content_block/input"));
        StringBuilder json = new StringBuilder();
        for (SseBody.Event delta : deltas) {
            assertEquals("content_block_delta", delta.name());
            assertEquals(0, delta.json().get("index").asInt());
            assertEquals("input_json_delta", delta.json().at("/delta/type").asText());
            json.append(delta.json().at("/delta/partial_json").asText());
        }
        assertEquals(whole.at("/content/0/input"), SimHttp.json(json.toString()));
        assertEquals(0, events.get(events.size() - 3).json().get("index").asInt());

        JsonNode messageDelta = events.get(events.size() - 2).json();
        assertEquals("tool_use", messageDelta.at("/delta/stop_reason").asText());
        assertTrue(messageDelta.at("/delta/stop_sequence").isNull());
        assertEquals(whole.at("/usage/output_tokens"), messageDelta.at("/usage/output_tokens"));
    }

    @Test
    void structuredOutputThroughOutputConfigIsATextBlockWhoseJsonFollowsTheSchema() throws Exception {
        // when
        HttpResponse<String> response = http.anthropic(SimHttp.ANTHROPIC,
                structuredOutputBody(REVIEW, SimHttp.sentimentSchema()), null);

        // then
        assertEquals(200, response.statusCode());
        JsonNode body = SimHttp.json(response.body());
        assertEquals(1, body.get("content").size());
        assertEquals("text", body.at("/content/0/type").asText());
        assertEquals("end_turn", body.get("stop_reason").asText());
        JsonNode answer = SimHttp.json(body.at("/content/0/text").asText());
        assertEquals(List.of(), SchemaCheck.violations(SimHttp.sentimentSchema(), answer));
        assertEquals("negative", answer.get("sentiment").asText());
    }

    @Test
    void structuredOutputStreamsTextDeltasThatJoinToTheNonStreamedText() throws Exception {
        // given
        String whole = SimHttp.json(http.anthropic(SimHttp.ANTHROPIC,
                structuredOutputBody(REVIEW, SimHttp.sentimentSchema()), null).body()).at("/content/0/text").asText();

        // when
        HttpResponse<String> response = http.anthropic(SimHttp.ANTHROPIC,
                structuredOutputBody(REVIEW, SimHttp.sentimentSchema()).put("stream", true), null);

        // then
        List<SseBody.Event> events = SseBody.events(response.body());
        JsonNode block = events.get(2).json();
        assertEquals("text", block.at("/content_block/type").asText());
        assertEquals("", block.at("/content_block/text").asText());
        StringBuilder text = new StringBuilder();
        events.stream().filter(event -> "content_block_delta".equals(event.name())).forEach(event -> {
            assertEquals("text_delta", event.json().at("/delta/type").asText());
            text.append(event.json().at("/delta/text").asText());
        });
        assertEquals(whole, text.toString());
        assertEquals("end_turn", events.get(events.size() - 2).json().at("/delta/stop_reason").asText());
        assertEquals("message_stop", events.get(events.size() - 1).name());
    }

    @Test
    void aForcedToolWinsOverOutputConfig() throws Exception {
        // given a request with both a forced tool and an output format
        ObjectNode body = SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema());
        body.putObject("output_config").putObject("format").put("type", "json_schema")
                .set("schema", SimHttp.json("{\"type\":\"object\",\"properties\":{\"other\":{\"type\":\"string\"}}}"));

        // when
        JsonNode answer = SimHttp.json(http.anthropic(SimHttp.ANTHROPIC, body, null).body());

        // then
        assertEquals("tool_use", answer.at("/content/0/type").asText());
        assertTrue(answer.at("/content/0/input").has("sentiment"));
    }

    @Test
    void anOutputFormatWithoutASchemaIsABadRequest() throws Exception {
        // given
        ObjectNode body = SimHttp.anthropicBody(REVIEW, null);
        body.putObject("output_config").putObject("format").put("type", "json_schema");

        // when
        HttpResponse<String> response = http.anthropic(SimHttp.ANTHROPIC, body, null);

        // then
        assertEquals(400, response.statusCode());
        assertEquals("invalid_request_error", SimHttp.json(response.body()).at("/error/type").asText());
    }

    @Test
    void aStreamedCallIsLedgeredAndBilledExactlyLikeANonStreamedOne() throws Exception {
        // when
        http.anthropic(SimHttp.ANTHROPIC, SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema()), "whole");
        http.anthropic(SimHttp.ANTHROPIC, SimHttp.anthropicBody(REVIEW, SimHttp.sentimentSchema()).put("stream", true),
                "streamed");

        // then
        List<LedgerEntry> ledger = simulator.ledger();
        assertEquals(2, ledger.size());
        assertEquals("streamed", ledger.get(1).idempotencyKey());
        assertEquals(200, ledger.get(1).status());
        assertEquals(ledger.get(0).inputTokens(), ledger.get(1).inputTokens());
        assertEquals(ledger.get(0).outputTokens(), ledger.get(1).outputTokens());
        assertEquals(ledger.get(0).costUsd(), ledger.get(1).costUsd());
    }

    @Test
    void anOverloadedStatusIsTheJsonErrorNotAStream() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.status(529));

        // when
        HttpResponse<String> response = http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody(REVIEW, null).put("stream", true), null);

        // then
        assertEquals(529, response.statusCode());
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElseThrow());
        assertEquals("overloaded_error", SimHttp.json(response.body()).at("/error/type").asText());
        assertFalse(simulator.ledger().get(0).isBilled());
    }

    @Test
    void countTokensNeverStreams() throws Exception {
        // when
        HttpResponse<String> response = http.anthropic(SimHttp.COUNT_TOKENS,
                SimHttp.anthropicBody(REVIEW, null).put("stream", true), null);

        // then
        assertEquals(200, response.statusCode());
        assertTrue(SimHttp.json(response.body()).get("input_tokens").asLong() > 0);
    }

    private static List<String> names(List<SseBody.Event> events) {
        List<String> names = new ArrayList<>();
        events.forEach(event -> names.add(event.name()));
        return names;
    }
}
