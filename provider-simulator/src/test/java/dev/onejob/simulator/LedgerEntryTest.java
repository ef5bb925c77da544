package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class LedgerEntryTest {

    private static final Instant RECEIVED = Instant.parse("2025-03-01T10:15:30.123456Z");
    private static final Instant ANSWERED = Instant.parse("2025-03-01T10:15:30.456789Z");
    private static final List<String> BILLING_FIELDS =
            List.of("request_id", "input_tokens", "output_tokens", "cached_input_tokens", "cost_usd");

    @Test
    void anEntryWithoutUsageRoundTripsWithNullBillingFields() throws Exception {
        // given
        LedgerEntry entry = new LedgerEntry(3, RECEIVED, "/v1/chat/completions", "openai-chat", "k", "gpt-4o-mini",
                "c".repeat(64), "status", 500, ANSWERED);

        // when
        ObjectNode json = entry.toJson();
        LedgerEntry read = LedgerEntry.fromJson(SimHttp.MAPPER.readTree(Json.write(json)));

        // then
        assertEquals(entry, read);
        assertFalse(read.isBilled());
        for (String field : BILLING_FIELDS) {
            assertTrue(json.has(field) && json.get(field).isNull(), field + " in " + json);
        }
    }

    @Test
    void aBilledEntryRoundTripsThroughJsonTextWithItsExactCostAsANumber() throws Exception {
        // given a cost a double cannot hold exactly, and one small enough for scientific notation
        LedgerEntry billed = billed(new BigDecimal("0.0000198000"));
        LedgerEntry tiny = billed(new BigDecimal("0.0000001500"));

        // when
        String text = Json.write(billed.toJson());
        String tinyText = Json.write(tiny.toJson());
        LedgerEntry read = LedgerEntry.fromJson(SimHttp.MAPPER.readTree(text));
        LedgerEntry tinyRead = LedgerEntry.fromJson(SimHttp.MAPPER.readTree(tinyText));

        // then
        assertEquals(billed, read);
        assertEquals(tiny, tinyRead);
        assertTrue(read.isBilled());
        assertTrue(text.contains("\"cost_usd\":0.0000198000"), text);
        assertTrue(tinyText.contains("\"cost_usd\":0.0000001500"), tinyText);
        JsonNode json = billed.toJson();
        assertEquals("req_0123456789abcdef01234567", json.get("request_id").asText());
        assertEquals(List.of(120L, 9L, 0L), List.of(json.get("input_tokens").asLong(),
                json.get("output_tokens").asLong(), json.get("cached_input_tokens").asLong()));
    }

    @Test
    void anEntryWrittenBeforeBillingExistedReadsAsNotBilled() throws Exception {
        // given
        ObjectNode old = new LedgerEntry(1, RECEIVED, "/v1/messages", "anthropic-messages", null, "claude-sonnet-4-5",
                "d".repeat(64), "answer", 200, ANSWERED).toJson();
        BILLING_FIELDS.forEach(old::remove);

        // when
        LedgerEntry read = LedgerEntry.fromJson(old);

        // then
        assertFalse(read.isBilled());
        assertEquals(200, read.status());
        assertEquals(ANSWERED, read.answeredAt());
    }

    private static LedgerEntry billed(BigDecimal cost) {
        return new LedgerEntry(2, RECEIVED, "/v1/chat/completions", "openai-chat", "k", "gpt-4o-mini", "e".repeat(64),
                "answer", 200, ANSWERED, "req_0123456789abcdef01234567", 120L, 9L, 0L, cost);
    }

    @Test
    void thePeakHeldCountsRequestsReceivedAndNotYetAnsweredAtTheSameTime() {
        // given three requests: the second arrives while the first is held, the third as the second is answered,
        // and the third is never answered
        Instant t0 = RECEIVED;
        LedgerEntry first = held(1, t0, t0.plusMillis(30));
        LedgerEntry second = held(2, t0.plusMillis(10), t0.plusMillis(20));
        LedgerEntry third = held(3, t0.plusMillis(20), null);

        // then at most two were held at once (an answer and an arrival at the same instant do not overlap)
        assertEquals(2, LedgerEntry.peakHeld(List.of(first, second, third)));
        assertEquals(0, LedgerEntry.peakHeld(List.of()));
    }

    private static LedgerEntry held(long sequence, Instant received, Instant answered) {
        return new LedgerEntry(sequence, received, "/v1/messages", "anthropic-messages", "k" + sequence, "m",
                "c".repeat(64), "answer", answered == null ? null : 200, answered);
    }
}
