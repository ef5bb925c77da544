package dev.onejob.core.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.contract.FinishReason;
import dev.onejob.core.json.Json;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.UUID;

/**
 * An {@code attempt-completions} record ({@code events/attempt-completion.v5.schema.json}): what one attempt did,
 * what the provider billed for it ({@code usage} as its reply reported, {@code costUsd} at the worker's prices;
 * null when not known), and which start of the attempt it reports ({@code startToken}: the token the worker wrote
 * when it started the attempt; null only for an attempt the worker never started), and for an answer why the provider
 * stopped writing it ({@code finishReason}; null when it said nothing onejob maps). Produced by attempt-worker,
 * consumed by result-reconciler. {@link #fromJson} also reads version 1 (no usage), 2 (no start token), 3 (no
 * {@code error.retry_after_ms}) and 4 (no {@code finish_reason}) records,
 * and refuses a record that does not say coherently what happened, so the reconciler can dead-letter it with the
 * reason.
 */
public record AttemptCompletion(UUID attemptId, UUID jobId, Outcome outcome, JsonNode result, Error error,
                                String unknownReason, String provider, String model, String providerRequestId,
                                long latencyMs, Instant completedAt, Usage usage, BigDecimal costUsd,
                                UUID startToken, FinishReason finishReason) {
    public static final int VERSION = 5;

    /** A completion without a finish reason (as version 4 records were written, and every one but an answer). */
    public AttemptCompletion(UUID attemptId, UUID jobId, Outcome outcome, JsonNode result, Error error,
                             String unknownReason, String provider, String model, String providerRequestId,
                             long latencyMs, Instant completedAt, Usage usage, BigDecimal costUsd, UUID startToken) {
        this(attemptId, jobId, outcome, result, error, unknownReason, provider, model, providerRequestId, latencyMs,
                completedAt, usage, costUsd, startToken, null);
    }

    /** A completion that names no start of its attempt (as version 1 and 2 records were written). */
    public AttemptCompletion(UUID attemptId, UUID jobId, Outcome outcome, JsonNode result, Error error,
                             String unknownReason, String provider, String model, String providerRequestId,
                             long latencyMs, Instant completedAt, Usage usage, BigDecimal costUsd) {
        this(attemptId, jobId, outcome, result, error, unknownReason, provider, model, providerRequestId, latencyMs,
                completedAt, usage, costUsd, null);
    }

    /** A completion that billed nothing onejob knows of. */
    public AttemptCompletion(UUID attemptId, UUID jobId, Outcome outcome, JsonNode result, Error error,
                             String unknownReason, String provider, String model, String providerRequestId,
                             long latencyMs, Instant completedAt) {
        this(attemptId, jobId, outcome, result, error, unknownReason, provider, model, providerRequestId, latencyMs,
                completedAt, null, null, null);
    }

    public enum Outcome { SUCCEEDED, FAILED, UNKNOWN }

    /**
     * Why the attempt failed. {@code retryAfterMs} is how long the provider asked to be left alone before it is tried
     * again (its {@code retry-after-ms}, {@code Retry-After} or rate-limit reset header), null when it said nothing.
     */
    public record Error(String code, String message, boolean retryable, boolean sent, Integer httpStatus,
                        String offendingAnswer, Long retryAfterMs) {
        public Error(String code, String message, boolean retryable, boolean sent, Integer httpStatus,
                     String offendingAnswer) {
            this(code, message, retryable, sent, httpStatus, offendingAnswer, null);
        }
    }

    public AttemptCompletion {
        Objects.requireNonNull(attemptId, "attempt_id");
        Objects.requireNonNull(jobId, "job_id");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(completedAt, "completed_at");
        switch (outcome) {
            case SUCCEEDED -> require(result != null && result.isObject() && error == null,
                    "a SUCCEEDED completion needs a result object and no error");
            case FAILED -> require(result == null && error != null, "a FAILED completion needs an error and no result");
            case UNKNOWN -> require(result == null && unknownReason != null,
                    "an UNKNOWN completion needs an unknown_reason and no result");
        }
        require(finishReason == null || outcome == Outcome.SUCCEEDED, "only a SUCCEEDED completion has a finish_reason");
        require(costUsd == null || usage != null && costUsd.signum() >= 0,
                "cost_usd needs usage and must not be negative");
        // As a JSON tree reads it back: equal costs make equal records, whatever their trailing zeros.
        costUsd = costUsd == null ? null : costUsd.stripTrailingZeros();
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    public ObjectNode toJson() {
        ObjectNode node = Json.object();
        node.put("attempt_id", attemptId.toString());
        node.put("job_id", jobId.toString());
        node.put("outcome", outcome.name());
        node.set("result", result == null ? Json.MAPPER.nullNode() : result);
        if (error == null) {
            node.putNull("error");
        } else {
            ObjectNode e = node.putObject("error");
            e.put("code", error.code());
            e.put("message", error.message());
            e.put("retryable", error.retryable());
            e.put("sent", error.sent());
            if (error.httpStatus() == null) {
                e.putNull("http_status");
            } else {
                e.put("http_status", error.httpStatus());
            }
            text(e, "offending_answer", error.offendingAnswer());
            if (error.retryAfterMs() == null) {
                e.putNull("retry_after_ms");
            } else {
                e.put("retry_after_ms", error.retryAfterMs());
            }
        }
        text(node, "unknown_reason", unknownReason);
        node.put("provider", provider);
        text(node, "model", model);
        text(node, "provider_request_id", providerRequestId);
        node.put("latency_ms", latencyMs);
        node.put("completed_at", completedAt.toString());
        node.set("usage", usage == null ? Json.MAPPER.nullNode() : usage.toJson());
        Fields.putNumber(node, "cost_usd", costUsd);
        text(node, "start_token", startToken == null ? null : startToken.toString());
        text(node, "finish_reason", finishReason == null ? null : finishReason.wire());
        return node;
    }

    /** Reads a record; throws {@link IllegalArgumentException} naming what is wrong. */
    public static AttemptCompletion fromJson(JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("the completion must be a JSON object");
        }
        try {
            JsonNode e = node.path("error");
            Error error = e.isObject() ? new Error(requiredText(e, "code"), requiredText(e, "message"),
                    e.path("retryable").asBoolean(false), e.path("sent").asBoolean(true),
                    e.path("http_status").isInt() ? e.get("http_status").asInt() : null, optionalText(e, "offending_answer"),
                    e.path("retry_after_ms").canConvertToLong() && e.get("retry_after_ms").asLong() >= 0
                            ? e.get("retry_after_ms").asLong() : null)
                    : null;
            JsonNode result = node.path("result");
            return new AttemptCompletion(UUID.fromString(requiredText(node, "attempt_id")),
                    UUID.fromString(requiredText(node, "job_id")), Outcome.valueOf(requiredText(node, "outcome")),
                    result.isObject() ? result : null, error, optionalText(node, "unknown_reason"),
                    requiredText(node, "provider"), optionalText(node, "model"),
                    optionalText(node, "provider_request_id"), node.path("latency_ms").asLong(0),
                    Instant.parse(requiredText(node, "completed_at")), Usage.fromJson(node.get("usage")),
                    Fields.optionalDecimal(node, "cost_usd"), optionalUuid(node, "start_token"),
                    FinishReason.fromWire(optionalText(node, "finish_reason")));
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw new IllegalArgumentException("not a valid attempt completion: " + e.getMessage(), e);
        }
    }

    private static String requiredText(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException("'" + field + "' is missing or not a string");
        }
        return value.asText();
    }

    private static UUID optionalUuid(JsonNode node, String field) {
        String text = optionalText(node, field);
        return text == null ? null : UUID.fromString(text);
    }

    private static String optionalText(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    private static void text(ObjectNode node, String field, String value) {
        if (value == null) {
            node.putNull(field);
        } else {
            node.put(field, value);
        }
    }
}
