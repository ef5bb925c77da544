package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Behaviours on streamed requests: delays and hangs before the first byte, reset, and the cut of fail_mid_stream. */
class StreamBehaviourIT extends SimulatorPerTest {

    private static final String OPENAI_HEADERS = "Authorization: Bearer sk-test\r\n";
    private static final String ANTHROPIC_HEADERS = "x-api-key: sk-test\r\nanthropic-version: 2023-06-01\r\n";

    StreamBehaviourIT() {
        super(SimulatorConfig.defaults().withName("stream-behaviour-it"));
    }

    @Test
    void aDelayIsSpentBeforeTheFirstByteOfTheStream() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.answerAfter(Duration.ofMillis(300)));
        HttpRequest request = http.post(SimHttp.OPENAI, OpenAiChatStreamIT.streamed(SimHttp.openAiBody("hi", null),
                true), null).build();
        long started = System.nanoTime();

        // when the status line and headers arrive
        HttpResponse<InputStream> response = HttpClient.newHttpClient().send(request,
                HttpResponse.BodyHandlers.ofInputStream());

        // then
        assertTrue(Duration.ofNanos(System.nanoTime() - started).toMillis() >= 300);
        assertEquals(200, response.statusCode());
        try (InputStream body = response.body()) {
            List<SseBody.Event> events = SseBody.events(new String(body.readAllBytes(), "UTF-8"));
            assertEquals("[DONE]", events.get(events.size() - 1).data());
        }
    }

    @Test
    void hangForeverSendsNoByteAndIsLedgeredWithoutStatus() {
        // given
        simulator.setDefaultBehaviour(Behaviour.hangForever());

        // when
        assertThrows(HttpTimeoutException.class, () -> http.withTimeout(Duration.ofMillis(300)).anthropic(
                SimHttp.ANTHROPIC, SimHttp.anthropicBody("hi", null).put("stream", true), null));

        // then
        assertEquals("hang", simulator.ledger().get(0).behaviour());
        assertNull(simulator.ledger().get(0).status());
    }

    @Test
    void resetClosesAStreamedRequestBeforeAnyByte() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.reset());

        // when
        SseBody.Raw raw = SseBody.post(simulator.port(), SimHttp.OPENAI, OPENAI_HEADERS,
                OpenAiChatStreamIT.streamed(SimHttp.openAiBody("hi", null), true).toString());

        // then
        assertEquals("", raw.statusLine());
    }

    @Test
    void failMidStreamSetThroughTheControlPlaneSendsThatManyEventsThenDropsTheConnection() throws Exception {
        // given
        HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create(simulator.baseUrl()
                        + "/_sim/behaviour/attempt-9"))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"kind\":\"fail_mid_stream\",\"after_events\":3}")).build());
        assertEquals(200, put.statusCode());

        // when
        SseBody.Raw raw = SseBody.post(simulator.port(), SimHttp.OPENAI,
                OPENAI_HEADERS + "Idempotency-Key: attempt-9\r\n",
                OpenAiChatStreamIT.streamed(SimHttp.openAiBody("The battery is great.", null), true).toString());

        // then
        assertEquals("HTTP/1.1 200 OK", raw.statusLine());
        assertFalse(raw.complete(), "the chunked body never ends");
        List<SseBody.Event> events = SseBody.events(raw.body());
        assertEquals(3, events.size());
        assertEquals("assistant", events.get(0).json().at("/choices/0/delta/role").asText());
        assertFalse(events.get(2).json().at("/choices/0/delta/content").asText().isEmpty());
        LedgerEntry entry = simulator.ledger().get(0);
        assertEquals("fail_mid_stream", entry.behaviour());
        assertEquals(200, entry.status());
        assertTrue(entry.isBilled(), "the provider generated the whole answer");
    }

    @Test
    void failMidStreamByDefaultCutsAnAnthropicStreamHalfWayAndNeverSendsMessageStop() throws Exception {
        // given the whole stream of the same request
        String body = SimHttp.anthropicBody("Arrived broken.", SimHttp.sentimentSchema()).put("stream", true)
                .toString();
        int whole = SseBody.events(SseBody.post(simulator.port(), SimHttp.ANTHROPIC, ANTHROPIC_HEADERS, body).body())
                .size();
        simulator.setDefaultBehaviour(Behaviour.failMidStream());

        // when
        SseBody.Raw raw = SseBody.post(simulator.port(), SimHttp.ANTHROPIC, ANTHROPIC_HEADERS, body);

        // then
        assertFalse(raw.complete());
        List<SseBody.Event> events = SseBody.events(raw.body());
        assertEquals(whole / 2, events.size());
        assertEquals("content_block_delta", events.get(events.size() - 1).name());
        assertTrue(events.stream().noneMatch(event -> "message_stop".equals(event.name())));
    }

    @Test
    void failMidStreamNeverSendsTheLastEventHoweverManyAreAskedFor() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.failMidStream(10_000));

        // when
        SseBody.Raw raw = SseBody.post(simulator.port(), SimHttp.OPENAI, OPENAI_HEADERS,
                OpenAiChatStreamIT.streamed(SimHttp.openAiBody("hi", null), true).toString());

        // then
        List<SseBody.Event> events = SseBody.events(raw.body());
        assertFalse(raw.complete());
        assertEquals(0, events.get(events.size() - 1).json().get("choices").size(), "the usage chunk came last");
    }

    @Test
    void aClientReadingACutStreamGetsAnError() {
        // given
        simulator.setDefaultBehaviour(Behaviour.failMidStream());

        // when / then
        assertThrows(IOException.class, () -> http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody("hi", null).put("stream", true), null));
    }

    @Test
    void failMidStreamOnANonStreamedRequestDeliversHalfTheBodyItsContentLengthPromised() throws Exception {
        // given
        String body = SimHttp.openAiBody("The battery is great.", SimHttp.sentimentSchema()).toString();
        simulator.setDefaultBehaviour(Behaviour.failMidStream());

        // when
        SseBody.Raw raw = SseBody.post(simulator.port(), SimHttp.OPENAI, OPENAI_HEADERS, body);

        // then
        assertEquals("HTTP/1.1 200 OK", raw.statusLine());
        assertFalse(raw.complete());
        assertTrue(raw.body().startsWith("{\"id\":\"chatcmpl-"), raw.body());
        assertThrows(IOException.class, () -> http.openAi(SimHttp.json(body), null));
    }
}
