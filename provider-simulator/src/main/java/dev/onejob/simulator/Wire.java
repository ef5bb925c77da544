package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.Headers;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * One provider wire protocol: how its requests are checked and read, how its answers and errors look.
 *
 * <p>Implemented by {@link OpenAiChatWire} and {@link AnthropicWire}; consumed by {@link ProtocolHandler},
 * which owns the HTTP exchange and applies behaviours. A streamed answer is made from the non-streamed one
 * ({@link #events}), so both carry the same text and the same usage. Implementations are stateless.
 */
interface Wire {

    Protocol protocol();

    /** Name of the response header carrying the request id ({@code x-request-id} / {@code request-id}). */
    String requestIdHeader();

    /** Checks headers (API key, required headers) and reads the body, or says why the request is refused. */
    SimRequest read(Headers headers, JsonNode body, String idempotencyKey, String bodySha256) throws WireRejection;

    /** Whether scripted behaviours apply on this endpoint (not for token counting). */
    default boolean appliesBehaviours() {
        return true;
    }

    /** The 200 body for {@code completion}. */
    JsonNode success(SimRequest request, Completion completion, long inputTokens);

    /** Whether {@code request} gets its answer as server-sent events ({@code "stream": true} where the API has it). */
    default boolean streams(SimRequest request) {
        return request.streamed();
    }

    /**
     * The events of the streamed answer whose non-streamed answer is {@code success}, in the order they are sent, its
     * text cut into {@code pieces} (normally {@link TextPieces#split}).
     */
    List<SseEvent> events(SimRequest request, JsonNode success, Function<String, List<String>> pieces);

    /** The tokens the {@code usage} block of {@code success} reports, or {@code null} when it has none (not billed). */
    Usage usage(JsonNode success);

    /** An error body in this protocol's own shape. */
    JsonNode error(int status, String message);

    /**
     * Adds this protocol's header saying when the request rate limit resets, {@code resetAfterMs} after {@code now}:
     * OpenAI {@code x-ratelimit-reset-requests} as a duration ({@code 250ms}, {@code 1s}, {@code 6m0s}), Anthropic
     * {@code anthropic-ratelimit-requests-reset} as an RFC 3339 UTC instant.
     */
    void addRateLimitReset(Headers headers, long resetAfterMs, Instant now);

    /** Constant-time comparison, so a wrong key's timing says nothing about the expected one. */
    static boolean keyMatches(String expected, String presented) {
        return presented != null && MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.UTF_8), presented.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code prefix} + 24 random lowercase hex characters, like provider ids. */
    static String randomId(String prefix) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return prefix + String.format("%016x%08x", random.nextLong(), random.nextInt());
    }

    static WireRejection badRequest(String message) {
        return new WireRejection(400, message);
    }

    /** Refuses a {@code stream} field that is neither a boolean nor null, as the real APIs do. */
    static void checkStreamFlag(JsonNode body) throws WireRejection {
        JsonNode stream = body.get("stream");
        if (stream != null && !stream.isNull() && !stream.isBoolean()) {
            throw badRequest("stream: Input should be a valid boolean");
        }
    }
}
