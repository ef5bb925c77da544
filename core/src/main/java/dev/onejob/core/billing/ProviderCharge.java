package dev.onejob.core.billing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * One line of a provider's usage export: a request it billed, named by the idempotency key onejob sent with it (the
 * attempt id) or by the provider's request id, with its tokens and what it charged. The format (one JSON object per
 * line) is the one {@code docs/money.md} documents and the provider simulator writes at {@code /_sim/usage-export}:
 * <pre>
 * {"request_id": "req_...", "idempotency_key": "ATTEMPT-ID" | null, "model": "gpt-4o-mini", "input_tokens": 120,
 *  "output_tokens": 9, "cached_input_tokens": 0, "cost_usd": 0.0000234, "billed_at": "2026-12-05T10:15:30Z"}
 * </pre>
 */
public record ProviderCharge(int line, String requestId, String idempotencyKey, String model, Usage usage,
                             BigDecimal costUsd, Instant billedAt) {

    /** Reads an export; a line that is not a charge is refused with its number and why, never skipped. */
    public static List<ProviderCharge> read(BufferedReader reader) throws IOException {
        List<ProviderCharge> charges = new ArrayList<>();
        String text;
        int line = 0;
        while ((text = reader.readLine()) != null) {
            line++;
            if (text.isBlank()) {
                continue;
            }
            try {
                charges.add(of(line, Json.parse(text)));
            } catch (IllegalArgumentException | DateTimeParseException e) {
                throw new IllegalArgumentException("line " + line + ": " + e.getMessage(), e);
            }
        }
        return charges;
    }

    static ProviderCharge of(int line, JsonNode node) {
        if (!node.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        String requestId = text(node, "request_id");
        String key = text(node, "idempotency_key");
        if (requestId == null && key == null) {
            throw new IllegalArgumentException("neither request_id nor idempotency_key names the request");
        }
        JsonNode cost = node.get("cost_usd");
        if (cost == null || !cost.isNumber() || cost.decimalValue().signum() < 0) {
            throw new IllegalArgumentException("'cost_usd' must be a number, 0 or more");
        }
        String billedAt = text(node, "billed_at");
        return new ProviderCharge(line, requestId, key, text(node, "model"), Usage.fromJson(node),
                cost.decimalValue(), billedAt == null ? null : Instant.parse(billedAt));
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }
}
