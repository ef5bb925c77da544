package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The provider-side bill: what the simulator records per billed answer and exports at /_sim/usage-export. */
class UsageExportIT extends SimulatorPerTest {

    private static final List<String> LINE_FIELDS = List.of("request_id", "idempotency_key", "model", "input_tokens",
            "output_tokens", "cached_input_tokens", "cost_usd", "billed_at");

    private static final ObjectReader EXACT = SimHttp.MAPPER.reader()
            .with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .without(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES);

    UsageExportIT() {
        super(SimulatorConfig.defaults().withName("usage-it"));
    }

    @Test
    void billedOpenAiAndAnthropicAnswersAreExportedWithTheirTokensAndTheExactDefaultPrice() throws Exception {
        // given
        HttpResponse<String> openAi = http.openAi(SimHttp.openAiBody("Great phone.", SimHttp.sentimentSchema()), "k-o");
        HttpResponse<String> anthropic = http.anthropic(SimHttp.ANTHROPIC,
                SimHttp.anthropicBody("Awful phone.", SimHttp.sentimentSchema()), "k-a");
        JsonNode openAiUsage = SimHttp.json(openAi.body()).get("usage");
        JsonNode anthropicUsage = SimHttp.json(anthropic.body()).get("usage");

        // when
        HttpResponse<String> export = exportResponse();

        // then
        assertEquals(200, export.statusCode());
        assertEquals("application/x-ndjson", export.headers().firstValue("Content-Type").orElseThrow());
        List<JsonNode> lines = lines(export.body());
        assertEquals(2, lines.size(), export.body());
        for (JsonNode line : lines) {
            assertEquals(LINE_FIELDS, fieldNames(line));
            assertTrue(line.get("cost_usd").isNumber(), line.toString());
        }
        assertBilled(lines.get(0), openAi.headers().firstValue("x-request-id").orElseThrow(), "k-o", "gpt-4o-mini",
                openAiUsage.get("prompt_tokens").asLong(), "0.15", openAiUsage.get("completion_tokens").asLong(),
                "0.60");
        JsonNode a = lines.get(1);
        assertBilled(a, anthropic.headers().firstValue("request-id").orElseThrow(), "k-a", "claude-sonnet-4-5",
                anthropicUsage.get("input_tokens").asLong(), "3.00", anthropicUsage.get("output_tokens").asLong(),
                "15.00");
        List<LedgerEntry> ledger = simulator.ledger();
        assertEquals(ledger.get(1).answeredAt().toString(), a.get("billed_at").asText());
        assertEquals(simulator.usageExport(), BilledRequest.fromNdjson(export.body()));
    }

    @Test
    void errorAnswersResetsAndTokenCountsAreNotBilled() throws Exception {
        // given
        simulator.setBehaviour("k-500", Behaviour.status(500));
        simulator.setBehaviour("k-reset", Behaviour.reset());
        ObjectNode countBody = SimHttp.anthropicBody("Count me.", null);
        countBody.remove("max_tokens");

        // when
        int failed = http.openAi(SimHttp.openAiBody("p", null), "k-500").statusCode();
        assertThrows(IOException.class, () -> http.openAi(SimHttp.openAiBody("p", null), "k-reset"));
        int counted = http.anthropic(SimHttp.COUNT_TOKENS, countBody, "k-count").statusCode();
        int answered = http.openAi(SimHttp.openAiBody("p", null), "k-ok").statusCode();

        // then
        assertEquals(List.of(500, 200, 200), List.of(failed, counted, answered));
        assertEquals(List.of("k-ok"), BilledRequest.fromNdjson(exportResponse().body()).stream()
                .map(BilledRequest::idempotencyKey).toList());
        for (LedgerEntry entry : simulator.ledger()) {
            if (!"k-ok".equals(entry.idempotencyKey())) {
                assertEquals(notBilled(entry), entry, "not billed: " + entry.idempotencyKey());
            }
        }
    }

    @Test
    void twoRequestsWithTheSameIdempotencyKeyAreTwoLinesWithTheirOwnRequestIds() throws Exception {
        // when
        HttpResponse<String> first = http.openAi(SimHttp.openAiBody("p", null), "k-twice");
        HttpResponse<String> second = http.openAi(SimHttp.openAiBody("p", null), "k-twice");

        // then
        List<BilledRequest> export = BilledRequest.fromNdjson(exportResponse().body());
        assertEquals(List.of("k-twice", "k-twice"), export.stream().map(BilledRequest::idempotencyKey).toList());
        assertEquals(List.of(first.headers().firstValue("x-request-id").orElseThrow(),
                        second.headers().firstValue("x-request-id").orElseThrow()),
                export.stream().map(BilledRequest::requestId).toList());
        assertNotEquals(export.get(0).requestId(), export.get(1).requestId());
    }

    @Test
    void invalidContentAndLateAnswersAreBilledLikeAnyAnswer() throws Exception {
        // given
        simulator.setBehaviour("k-malformed", Behaviour.malformedJson());
        simulator.setBehaviour("k-late", Behaviour.hangThenAnswer(Duration.ofMillis(200)));
        simulator.setBehaviour("k-slow", Behaviour.answerAfter(Duration.ofMillis(200)));

        // when
        http.anthropic(SimHttp.ANTHROPIC, SimHttp.anthropicBody("p", SimHttp.sentimentSchema()), "k-malformed");
        http.openAi(SimHttp.openAiBody("p", null), "k-late");
        http.openAi(SimHttp.openAiBody("p", null), "k-slow");

        // then
        assertEquals(List.of("k-malformed", "k-late", "k-slow"),
                simulator.usageExport().stream().map(BilledRequest::idempotencyKey).toList());
        assertTrue(simulator.usageExport().stream().allMatch(line -> line.costUsd().signum() > 0));
    }

    @Test
    void aModelWithoutAPriceIsBilledNothingAndItsTokensAreStillExported() throws Exception {
        // given
        ObjectNode body = SimHttp.openAiBody("p", null).put("model", "gpt-unpriced");

        // when
        JsonNode usage = SimHttp.json(http.openAi(body, null).body()).get("usage");

        // then
        JsonNode line = lines(exportResponse().body()).get(0);
        assertTrue(line.get("idempotency_key").isNull());
        assertEquals("gpt-unpriced", line.get("model").asText());
        assertEquals(usage.get("prompt_tokens").asLong(), line.get("input_tokens").asLong());
        assertEquals(new BigDecimal("0.0000000000"), line.get("cost_usd").decimalValue());
    }

    @Test
    void aConfiguredPriceIsWhatTheExportCharges() throws Exception {
        // given
        simulator.close();
        simulator = ProviderSimulator.start(SimulatorConfig.defaults()
                .withPrice("gpt-4o-mini", Price.perMillion("1000000", "2000000", "0")));
        http = new SimHttp(simulator);

        // when
        JsonNode usage = SimHttp.json(http.openAi(SimHttp.openAiBody("p", null), "k").body()).get("usage");

        // then
        long expected = usage.get("prompt_tokens").asLong() + 2 * usage.get("completion_tokens").asLong();
        assertEquals(0, BigDecimal.valueOf(expected).compareTo(simulator.usageExport().get(0).costUsd()));
    }

    @Test
    void theExportIsEmptyWithoutBilledRequestsClearsWithTheLedgerAndOnlyAnswersGet() throws Exception {
        // given
        http.openAi(SimHttp.openAiBody("p", null), "k");
        String before = exportResponse().body();

        // when
        simulator.clearLedger();
        HttpResponse<String> after = exportResponse();
        int post = http.send(HttpRequest.newBuilder(URI.create(simulator.baseUrl() + "/_sim/usage-export"))
                .POST(HttpRequest.BodyPublishers.noBody()).build()).statusCode();

        // then
        assertEquals(1, lines(before).size());
        assertEquals(200, after.statusCode());
        assertEquals("", after.body());
        assertEquals(405, post);
    }

    private HttpResponse<String> exportResponse() throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(simulator.baseUrl() + "/_sim/usage-export")).GET().build());
    }

    /** One export line: the call's ids and model, its tokens (none cached) and their cost at these prices. */
    private static void assertBilled(JsonNode line, String requestId, String key, String model, long input,
                                     String inputPrice, long output, String outputPrice) {
        assertEquals(requestId, line.get("request_id").asText());
        assertEquals(key, line.get("idempotency_key").asText());
        assertEquals(model, line.get("model").asText());
        assertEquals(input, line.get("input_tokens").asLong());
        assertEquals(output, line.get("output_tokens").asLong());
        assertEquals(0, line.get("cached_input_tokens").asLong());
        assertEquals(usd(input, inputPrice, output, outputPrice), line.get("cost_usd").decimalValue());
    }

    /** Input and output tokens at the given USD-per-million prices, no cached tokens, scale 10 half up. */
    private static BigDecimal usd(long input, String inputPrice, long output, String outputPrice) {
        return new BigDecimal(input).multiply(new BigDecimal(inputPrice))
                .add(new BigDecimal(output).multiply(new BigDecimal(outputPrice)))
                .divide(new BigDecimal(1_000_000)).setScale(10, RoundingMode.HALF_UP);
    }

    private static LedgerEntry notBilled(LedgerEntry entry) {
        return new LedgerEntry(entry.sequence(), entry.receivedAt(), entry.path(), entry.protocol(),
                entry.idempotencyKey(), entry.model(), entry.bodySha256(), entry.behaviour(), entry.status(),
                entry.answeredAt());
    }

    /** Each line's object, numbers with a fraction read as written (not through a double). */
    private static List<JsonNode> lines(String ndjson) throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : ndjson.split("\n")) {
            if (!line.isEmpty()) {
                lines.add(EXACT.readTree(line));
            }
        }
        assertTrue(ndjson.isEmpty() || ndjson.endsWith("\n"), "every line ends with a newline");
        return lines;
    }

    private static List<String> fieldNames(JsonNode line) {
        List<String> names = new ArrayList<>();
        line.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
