package dev.onejob.simulator;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One line of the simulator's usage export ({@code GET /_sim/usage-export}): a request the provider billed, as a
 * real provider's billing export lists it.
 *
 * <p>Made from billed {@link LedgerEntry}s; written as one JSON object per line ({@link #toNdjson}) and read back by
 * {@link #fromNdjson} or {@link #fromJson}, e.g. by {@code onejob billing reconcile}. Owns nothing: an immutable value.
 *
 * @param requestId         the id the answer carried in its {@code x-request-id} / {@code request-id} header
 * @param idempotencyKey    the request's {@code Idempotency-Key}, or {@code null} when it had none
 * @param model             the request's model
 * @param inputTokens       input tokens the answer reported, cached ones included
 * @param outputTokens      output tokens the answer reported
 * @param cachedInputTokens input tokens read from the cache
 * @param costUsd           what was charged, US dollars with {@link Price#COST_SCALE} places
 * @param billedAt          when the answer's status was set (it left right after)
 */
public record BilledRequest(
        String requestId,
        String idempotencyKey,
        String model,
        long inputTokens,
        long outputTokens,
        long cachedInputTokens,
        BigDecimal costUsd,
        Instant billedAt) {

    /** The media type of the export. */
    public static final String NDJSON = "application/x-ndjson";

    private static final ObjectReader EXACT = Json.MAPPER.reader().with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .without(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES);

    public BilledRequest {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(costUsd, "costUsd");
        Objects.requireNonNull(billedAt, "billedAt");
    }

    /** The export line of {@code entry}, or empty when it was not billed. */
    public static Optional<BilledRequest> from(LedgerEntry entry) {
        if (!entry.isBilled()) {
            return Optional.empty();
        }
        return Optional.of(new BilledRequest(entry.requestId(), entry.idempotencyKey(), entry.model(),
                entry.inputTokens(), entry.outputTokens(), entry.cachedInputTokens(), entry.costUsd(),
                entry.answeredAt()));
    }

    public ObjectNode toJson() {
        ObjectNode json = Json.object();
        json.put("request_id", requestId);
        json.put("idempotency_key", idempotencyKey);
        json.put("model", model);
        json.put("input_tokens", inputTokens);
        json.put("output_tokens", outputTokens);
        json.put("cached_input_tokens", cachedInputTokens);
        json.put("cost_usd", costUsd);
        json.put("billed_at", billedAt.toString());
        return json;
    }

    /** Reads one line's object; {@link IllegalArgumentException} naming the field when one is missing. */
    public static BilledRequest fromJson(JsonNode json) {
        return new BilledRequest(
                required(json, "request_id").asText(),
                Json.text(json, "idempotency_key"),
                Json.text(json, "model"),
                required(json, "input_tokens").asLong(),
                required(json, "output_tokens").asLong(),
                required(json, "cached_input_tokens").asLong(),
                requiredCost(json),
                Instant.parse(required(json, "billed_at").asText()));
    }

    /** The export text: each request's compact JSON, each followed by a newline; empty when none was billed. */
    public static String toNdjson(List<BilledRequest> requests) {
        StringBuilder text = new StringBuilder();
        for (BilledRequest request : requests) {
            text.append(Json.write(request.toJson())).append('\n');
        }
        return text.toString();
    }

    /**
     * Reads an export; blank lines are skipped. Costs are read as decimals, never through a double.
     *
     * @throws IllegalArgumentException naming the line when one is not a billed request
     */
    public static List<BilledRequest> fromNdjson(String text) {
        List<BilledRequest> requests = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            try {
                requests.add(fromJson(EXACT.readTree(lines[i])));
            } catch (IOException e) {
                throw new IllegalArgumentException("usage export line " + (i + 1) + " is not JSON: "
                        + e.getMessage(), e);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("usage export line " + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return requests;
    }

    private static BigDecimal requiredCost(JsonNode json) {
        required(json, "cost_usd");
        return Json.costOrNull(json, "cost_usd");
    }

    private static JsonNode required(JsonNode json, String field) {
        JsonNode value = json.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("'" + field + "' is required");
        }
        return value;
    }
}
