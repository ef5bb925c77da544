package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One protocol request as the simulator saw it, and what it was billed. Never holds an API key or the
 * request body, only the body's SHA-256.
 *
 * <p>Produced by {@link Ledger}; serialised for {@code GET /_sim/ledger} by {@link #toJson()} and read
 * back by {@link #fromJson(JsonNode)}. The billed ones make {@code GET /_sim/usage-export} ({@link BilledRequest}).
 *
 * @param sequence          1-based arrival order within this simulator (restarts after a clear)
 * @param receivedAt        when the request body had been read
 * @param path              request path, e.g. {@code /v1/chat/completions}
 * @param protocol          {@code openai-chat}, {@code anthropic-messages} or {@code anthropic-count-tokens}
 * @param idempotencyKey    the {@code Idempotency-Key} header, or {@code null}
 * @param model             the request's {@code model}, or {@code null} when it had none or was not JSON
 * @param bodySha256        hex SHA-256 of the raw request body
 * @param behaviour         the behaviour kind applied, or {@code "rejected"} when the request was refused
 *                          before any behaviour (bad key, bad request)
 * @param status            the HTTP status answered, or {@code null} while none was (hang, reset); set just
 *                          before the response is written, so a client holding its answer finds it here
 * @param answeredAt        when that status was set (the answer left right after), or {@code null} while none was
 * @param requestId         the request id the billed answer carried in its {@code x-request-id} / {@code request-id}
 *                          header; this and the four fields after it are {@code null} unless the request was billed
 *                          (a 2xx answer with a {@code usage} block, whatever its content)
 * @param inputTokens       input tokens the answer's {@code usage} reported, cached ones included
 * @param outputTokens      output tokens the answer's {@code usage} reported
 * @param cachedInputTokens input tokens read from the cache (the simulator reports none: 0)
 * @param costUsd           what the simulator charged, in US dollars (see {@link Price#cost})
 */
public record LedgerEntry(
        long sequence,
        Instant receivedAt,
        String path,
        String protocol,
        String idempotencyKey,
        String model,
        String bodySha256,
        String behaviour,
        Integer status,
        Instant answeredAt,
        String requestId,
        Long inputTokens,
        Long outputTokens,
        Long cachedInputTokens,
        BigDecimal costUsd) {

    /** The behaviour value of requests refused before any behaviour was applied. */
    public static final String REJECTED = "rejected";

    /** A request without an answer yet, as it arrives. */
    public LedgerEntry(long sequence, Instant receivedAt, String path, String protocol, String idempotencyKey,
                       String model, String bodySha256, String behaviour, Integer status) {
        this(sequence, receivedAt, path, protocol, idempotencyKey, model, bodySha256, behaviour, status, null);
    }

    /** A request that was not billed. */
    public LedgerEntry(long sequence, Instant receivedAt, String path, String protocol, String idempotencyKey,
                       String model, String bodySha256, String behaviour, Integer status, Instant answeredAt) {
        this(sequence, receivedAt, path, protocol, idempotencyKey, model, bodySha256, behaviour, status, answeredAt,
                null, null, null, null, null);
    }

    /** Whether the provider bills this request: its answer was a 2xx carrying a {@code usage} block. */
    public boolean isBilled() {
        return requestId != null;
    }

    /**
     * The most of {@code entries} the simulator held at once: received and not yet answered (one never answered is
     * held to the end). An answer and an arrival at the same microsecond do not overlap.
     */
    public static long peakHeld(List<LedgerEntry> entries) {
        List<Instant[]> held = new ArrayList<>();
        for (LedgerEntry entry : entries) {
            held.add(new Instant[] {entry.receivedAt(), entry.answeredAt()});
        }
        return peakOverlap(held);
    }

    /**
     * The most of {@code intervals} ({received, answered or null}) open at once; a null end is open to the end, and
     * an end and a start at the same microsecond do not overlap.
     */
    public static long peakOverlap(List<Instant[]> intervals) {
        List<long[]> events = new ArrayList<>();
        for (Instant[] interval : intervals) {
            events.add(new long[] {micros(interval[0]), 1});
            events.add(new long[] {interval[1] == null ? Long.MAX_VALUE : micros(interval[1]), -1});
        }
        events.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        long current = 0;
        long peak = 0;
        for (long[] event : events) {
            current += event[1];
            peak = Math.max(peak, current);
        }
        return peak;
    }

    private static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
    }

    LedgerEntry withAnswer(int answered, Instant at, Ledger.Charge charge) {
        if (charge == null) {
            return new LedgerEntry(sequence, receivedAt, path, protocol, idempotencyKey, model, bodySha256,
                    behaviour, answered, at);
        }
        Usage usage = charge.usage();
        return new LedgerEntry(sequence, receivedAt, path, protocol, idempotencyKey, model, bodySha256, behaviour,
                answered, at, charge.requestId(), usage.inputTokens(), usage.outputTokens(),
                usage.cachedInputTokens(), charge.costUsd());
    }

    public ObjectNode toJson() {
        ObjectNode json = Json.object();
        json.put("sequence", sequence);
        json.put("received_at", receivedAt.toString());
        json.put("path", path);
        json.put("protocol", protocol);
        json.put("idempotency_key", idempotencyKey);
        json.put("model", model);
        json.put("body_sha256", bodySha256);
        json.put("behaviour", behaviour);
        json.put("status", status);
        json.put("answered_at", answeredAt == null ? null : answeredAt.toString());
        json.put("request_id", requestId);
        json.put("input_tokens", inputTokens);
        json.put("output_tokens", outputTokens);
        json.put("cached_input_tokens", cachedInputTokens);
        json.put("cost_usd", costUsd);
        return json;
    }

    /** Reads {@link #toJson()}'s output; entries written before billing was recorded read as not billed. */
    public static LedgerEntry fromJson(JsonNode json) {
        JsonNode status = json.get("status");
        return new LedgerEntry(
                json.get("sequence").asLong(),
                Instant.parse(json.get("received_at").asText()),
                Json.text(json, "path"),
                Json.text(json, "protocol"),
                Json.text(json, "idempotency_key"),
                Json.text(json, "model"),
                Json.text(json, "body_sha256"),
                Json.text(json, "behaviour"),
                status == null || status.isNull() ? null : status.asInt(),
                json.hasNonNull("answered_at") ? Instant.parse(json.get("answered_at").asText()) : null,
                Json.text(json, "request_id"),
                Json.longOrNull(json, "input_tokens"),
                Json.longOrNull(json, "output_tokens"),
                Json.longOrNull(json, "cached_input_tokens"),
                Json.costOrNull(json, "cost_usd"));
    }
}
