package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The paced behaviour: a normal answer whose stream sends its text in a set number of pieces, spaced in time. */
class PacedStreamIT extends SimulatorPerTest {

    PacedStreamIT() {
        super(SimulatorConfig.defaults().withName("paced-it"));
    }

    /** One event of a stream and when it arrived, in ms since the request was sent. */
    record Arrival(long atMs, SseBody.Event event) {
    }

    /** A streamed response: when its status and headers arrived, and its events as they arrived. */
    record Timed(int status, long headersAtMs, List<Arrival> events) {
        long lastAtMs() {
            return events.get(events.size() - 1).atMs();
        }
    }

    @Test
    void anOpenAiPacedStreamSendsItsHeadAtOnceThenExactlyThatManyPiecesAnIntervalApart() throws Exception {
        // given five pieces 200 ms apart, set over the control plane, and a warm connection
        assertEquals(200, http.openAi(SimHttp.openAiBody("warm up", null), null).statusCode());
        assertEquals(200, http.control("PUT", "/_sim/behaviour/paced-1",
                "{\"kind\":\"paced\",\"pieces\":5,\"interval_ms\":200}").statusCode());
        JsonNode body = OpenAiChatStreamIT.streamed(SimHttp.openAiBody("The battery is great.",
                SimHttp.sentimentSchema()), true);

        // when
        Timed timed = timed(http.openAiHttpRequest(body, "paced-1"));

        // then the head came before the first interval, and the pieces came one per interval
        assertEquals(200, timed.status());
        assertTrue(timed.headersAtMs() < 150, "headers after " + timed.headersAtMs() + " ms");
        List<Arrival> pieces = timed.events().stream().filter(PacedStreamIT::isOpenAiPiece).toList();
        assertEquals(5, pieces.size(), timed.events().toString());
        assertSpacedAtLeast(pieces, 100);
        assertTrue(timed.lastAtMs() >= 800, "the stream lasted " + timed.lastAtMs() + " ms");
        assertEquals("[DONE]", timed.events().get(timed.events().size() - 1).event().data());

        // and the pieces are the normal, schema-valid answer, billed as usual
        String content = String.join("", pieces.stream()
                .map(piece -> piece.event().json().at("/choices/0/delta/content").asText()).toList());
        assertEquals(List.of(), SchemaCheck.violations(SimHttp.sentimentSchema(), SimHttp.json(content)));
        LedgerEntry entry = simulator.ledger().get(1);
        assertEquals("paced", entry.behaviour());
        assertTrue(entry.isBilled());
        assertEquals(TokenCounter.approximate(content), entry.outputTokens());
    }

    @Test
    void anAnthropicPacedStreamSendsEachDeltaAnIntervalApartAndTheSameTextAsTheWholeAnswer() throws Exception {
        // given
        simulator.setBehaviour("paced-2", Behaviour.paced(4, Duration.ofMillis(150)));
        ObjectNode body = SimHttp.anthropicBody("Arrived broken.", SimHttp.sentimentSchema());
        JsonNode whole = SimHttp.json(http.anthropic(SimHttp.ANTHROPIC, body, null).body()).at("/content/0/input");

        // when
        Timed timed = timed(http.anthropicRequest(body.deepCopy().put("stream", true), "paced-2"));

        // then
        List<Arrival> deltas = timed.events().stream()
                .filter(arrival -> "content_block_delta".equals(arrival.event().name())).toList();
        assertEquals(4, deltas.size());
        assertSpacedAtLeast(deltas, 75);
        assertTrue(timed.lastAtMs() >= 450, "the stream lasted " + timed.lastAtMs() + " ms");
        assertEquals("message_start", timed.events().get(0).event().name());
        assertTrue(timed.events().get(0).atMs() < deltas.get(1).atMs() - 75, "message_start came at once");
        String json = String.join("", deltas.stream()
                .map(delta -> delta.event().json().at("/delta/partial_json").asText()).toList());
        assertEquals(whole, SimHttp.json(json));
    }

    @Test
    void aPacedAnswerNotStreamedComesWholeAfterAllTheIntervals() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.paced(3, Duration.ofMillis(150)));
        long started = System.nanoTime();

        // when
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody("The battery is great.",
                SimHttp.sentimentSchema()), "paced-3");

        // then
        assertTrue(elapsedMs(started) >= 450, "answered after " + elapsedMs(started) + " ms");
        assertEquals(200, response.statusCode());
        assertEquals(List.of(), SchemaCheck.violations(SimHttp.sentimentSchema(), SimHttp.openAiAnswer(response)));
        assertEquals(1, simulator.usageExport().size());
    }

    @Test
    void aStreamedOnlyPaceAnswersARequestThatDoesNotStreamAtOnce() throws Exception {
        // given a pace of ten minutes that applies to streams only
        simulator.setDefaultBehaviour(new Behaviour.Paced(600, 1_000, true));
        long started = System.nanoTime();

        // when a request that does not stream comes
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody("The battery is great.",
                SimHttp.sentimentSchema()), "paced-4");

        // then it is answered at once, validly
        assertTrue(elapsedMs(started) < 30_000, "answered after " + elapsedMs(started) + " ms");
        assertEquals(200, response.statusCode());
        assertEquals(List.of(), SchemaCheck.violations(SimHttp.sentimentSchema(), SimHttp.openAiAnswer(response)));
    }

    @Test
    void anAnswerShorterThanThePiecesIsLengthenedSoNoPieceIsEmpty() throws Exception {
        // given more pieces than the plain free-text answer has characters
        simulator.setDefaultBehaviour(Behaviour.paced(400, Duration.ZERO));

        // when
        HttpResponse<String> response = http.openAi(OpenAiChatStreamIT.streamed(SimHttp.openAiBody("hi", null), true),
                null);

        // then
        List<String> pieces = SseBody.events(response.body()).stream()
                .filter(event -> !event.data().equals("[DONE]"))
                .map(SseBody.Event::json).filter(chunk -> !chunk.at("/choices/0/delta").has("role"))
                .map(chunk -> chunk.at("/choices/0/delta/content")).filter(JsonNode::isTextual)
                .map(JsonNode::asText).toList();
        assertEquals(400, pieces.size());
        assertTrue(pieces.stream().noneMatch(String::isEmpty));
    }

    @Test
    void aFewDozenPacedStreamsRunSideBySideWhileOtherRequestsAreAnswered() throws Exception {
        // given 30 streams of 4 pieces 250 ms apart, released together
        int streams = 30;
        simulator.setDefaultBehaviour(Behaviour.paced(4, Duration.ofMillis(250)));
        simulator.setBehaviour("plain", Behaviour.answer());
        JsonNode body = OpenAiChatStreamIT.streamed(SimHttp.openAiBody("A long story.", null), true);
        ExecutorService pool = Executors.newFixedThreadPool(streams);
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch heads = new CountDownLatch(streams);
        try {
            List<Future<Timed>> running = new ArrayList<>();
            for (int i = 0; i < streams; i++) {
                running.add(pool.submit(() -> {
                    gate.await();
                    return timed(http.openAiHttpRequest(body, null), heads::countDown);
                }));
            }
            long started = System.nanoTime();

            // when every stream has its head, a plain request comes
            gate.countDown();
            assertTrue(heads.await(20, TimeUnit.SECONDS), heads.getCount() + " streams still without a head");
            HttpResponse<String> plain = http.openAi(SimHttp.openAiBody("hi", null), "plain");
            long plainAtMs = elapsedMs(started);
            List<Timed> done = new ArrayList<>();
            for (Future<Timed> stream : running) {
                done.add(stream.get(30, TimeUnit.SECONDS));
            }

            // then every stream had its head before any stream ended, and the plain request did not wait for them
            long lastHead = done.stream().mapToLong(Timed::headersAtMs).max().orElseThrow();
            long firstEnd = done.stream().mapToLong(Timed::lastAtMs).min().orElseThrow();
            assertTrue(lastHead < firstEnd, "heads until " + lastHead + " ms, first end at " + firstEnd + " ms");
            assertEquals(200, plain.statusCode());
            assertTrue(plainAtMs < firstEnd, "plain answered at " + plainAtMs + " ms, first end at " + firstEnd);
            assertTrue(done.stream().allMatch(t -> t.status() == 200
                    && t.events().stream().filter(PacedStreamIT::isOpenAiPiece).count() == 4));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void closingTheSimulatorCutsAPacedStreamInsteadOfWaitingItOut() throws Exception {
        // given a stream that would last 100 s
        simulator.setDefaultBehaviour(Behaviour.paced(100, Duration.ofSeconds(1)));
        HttpResponse<InputStream> response = http.client().send(http.openAiHttpRequest(
                OpenAiChatStreamIT.streamed(SimHttp.openAiBody("hi", null), true), null),
                HttpResponse.BodyHandlers.ofInputStream());

        // when
        simulator.close();

        // then the body ends with an error, not after 100 s
        try (InputStream in = response.body()) {
            assertThrows(IOException.class, in::readAllBytes);
        }
    }

    private Timed timed(HttpRequest request) throws IOException, InterruptedException {
        return timed(request, () -> { });
    }

    /** Sends {@code request} and reads its event stream, noting when the head and each event arrived. */
    private Timed timed(HttpRequest request, Runnable onHead) throws IOException, InterruptedException {
        long started = System.nanoTime();
        HttpResponse<InputStream> response = http.client().send(request, HttpResponse.BodyHandlers.ofInputStream());
        long headersAt = elapsedMs(started);
        onHead.run();
        List<Arrival> events = new ArrayList<>();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String name = null;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.startsWith("event: ")) {
                    name = line.substring("event: ".length());
                } else if (line.startsWith("data: ")) {
                    events.add(new Arrival(elapsedMs(started), new SseBody.Event(name, line.substring(6))));
                    name = null;
                }
            }
        }
        return new Timed(response.statusCode(), headersAt, events);
    }

    private static boolean isOpenAiPiece(Arrival arrival) {
        if (arrival.event().data().equals("[DONE]")) {
            return false;
        }
        JsonNode delta = arrival.event().json().at("/choices/0/delta");
        return delta.has("content") && !delta.has("role");
    }

    /** Consecutive pieces arrived at least {@code ms} apart (loosely: the server spaces them by the interval). */
    private static void assertSpacedAtLeast(List<Arrival> pieces, long ms) {
        for (int i = 1; i < pieces.size(); i++) {
            long gap = pieces.get(i).atMs() - pieces.get(i - 1).atMs();
            assertTrue(gap >= ms, "piece " + i + " came " + gap + " ms after the one before");
        }
    }

    private static long elapsedMs(long startedNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }
}
