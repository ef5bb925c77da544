package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BilledRequestTest {

    private static final Instant AT = Instant.parse("2025-03-01T10:15:30.456789Z");

    @Test
    void theExportTextReadsBackToTheSameRequestsWithExactCosts() {
        // given
        List<BilledRequest> requests = List.of(
                new BilledRequest("req_1", "k-1", "gpt-4o-mini", 120, 9, 0, new BigDecimal("0.0000234000"), AT),
                new BilledRequest("req_2", null, "claude-sonnet-4-5", 1, 0, 0, new BigDecimal("0.0000030000"), AT));

        // when
        String text = BilledRequest.toNdjson(requests);

        // then
        assertEquals("""
                {"request_id":"req_1","idempotency_key":"k-1","model":"gpt-4o-mini","input_tokens":120,\
                "output_tokens":9,"cached_input_tokens":0,"cost_usd":0.0000234000,"billed_at":"2025-03-01T10:15:30.456789Z"}
                {"request_id":"req_2","idempotency_key":null,"model":"claude-sonnet-4-5","input_tokens":1,\
                "output_tokens":0,"cached_input_tokens":0,"cost_usd":0.0000030000,"billed_at":"2025-03-01T10:15:30.456789Z"}
                """, text);
        assertEquals(requests, BilledRequest.fromNdjson(text));
    }

    @Test
    void onlyABilledLedgerEntryIsAnExportLine() {
        // given
        LedgerEntry unbilled = new LedgerEntry(1, AT, "/v1/messages", "anthropic-messages", "k", "claude-sonnet-4-5",
                "a".repeat(64), "status", 529, AT);
        LedgerEntry billed = new LedgerEntry(2, AT, "/v1/messages", "anthropic-messages", "k", "claude-sonnet-4-5",
                "a".repeat(64), "answer", 200, AT, "req_9", 10L, 2L, 0L, new BigDecimal("0.0000600000"));

        // when / then
        assertEquals(Optional.empty(), BilledRequest.from(unbilled));
        assertEquals(Optional.of(new BilledRequest("req_9", "k", "claude-sonnet-4-5", 10, 2, 0,
                new BigDecimal("0.0000600000"), AT)), BilledRequest.from(billed));
    }

    @Test
    void aLineWithoutACostIsRefusedNamingItsLineNumber() {
        // when
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> BilledRequest.fromNdjson(
                "\n{\"request_id\":\"r\",\"input_tokens\":1,\"output_tokens\":1,\"cached_input_tokens\":0,"
                        + "\"billed_at\":\"2025-03-01T10:15:30Z\"}\n"));

        // then
        assertTrue(refused.getMessage().contains("line 2") && refused.getMessage().contains("cost_usd"),
                refused.getMessage());
    }
}
