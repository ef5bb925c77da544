package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * The OpenAI Chat Completions wire protocol ({@code POST /v1/chat/completions}).
 *
 * <p>Consumes {@code Authorization: Bearer} and bodies with {@code model}, {@code messages}, an optional
 * {@code response_format} of type {@code json_schema} or {@code json_object} (whose messages must say "json", as
 * OpenAI insists; the answer is then an object with one string member) and optional {@code stream} (a boolean) and
 * {@code stream_options.include_usage} (only with {@code "stream": true}, as the real API insists); produces
 * {@code chat.completion} objects whose message content is the answer as JSON text (prose for a request without a
 * schema) and whose {@code usage} has {@code prompt_tokens}, {@code completion_tokens}, {@code total_tokens} and the
 * (zero) details {@code prompt_tokens_details.cached_tokens} and {@code completion_tokens_details.reasoning_tokens};
 * for {@code "stream": true} the same answer as {@code chat.completion.chunk} events ({@link OpenAiChatStream}); and
 * errors shaped {@code {"error":{"message","type","param","code"}}} with OpenAI's type and code (429:
 * {@code "type":"requests","code":"rate_limit_exceeded"}), never streamed, a refusal's rate-limit reset in
 * {@code x-ratelimit-reset-requests} as OpenAI writes durations ({@link #duration}). Owns nothing but the expected
 * API key.
 */
record OpenAiChatWire(String expectedApiKey, Clock clock) implements Wire {
    /** The object a model asked for any JSON object writes here: one string member. */
    private static final JsonNode JSON_OBJECT_ANSWER = jsonObjectAnswer();


    @Override
    public Protocol protocol() {
        return Protocol.OPENAI_CHAT;
    }

    @Override
    public String requestIdHeader() {
        return "x-request-id";
    }

    @Override
    public SimRequest read(Headers headers, JsonNode body, String idempotencyKey, String bodySha256)
            throws WireRejection {
        checkKey(headers.getFirst("Authorization"));
        String model = Json.text(body, "model");
        if (model == null) {
            throw Wire.badRequest("you must provide a model parameter");
        }
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw Wire.badRequest("'messages' must be a non-empty array");
        }
        Wire.checkStreamFlag(body);
        JsonNode streamOptions = body.get("stream_options");
        if (streamOptions != null && !streamOptions.isNull() && !body.path("stream").asBoolean(false)) {
            throw Wire.badRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.");
        }
        Prompt prompt = new Prompt();
        for (int i = 0; i < messages.size(); i++) {
            String role = Json.text(messages.get(i), "role");
            JsonNode content = messages.get(i).get("content");
            if ("assistant".equals(role) && (content == null || content.isNull())
                    && messages.get(i).path("tool_calls").isArray()) {
                continue; // an earlier answer that only called tools
            }
            if ("tool".equals(role) && Json.text(messages.get(i), "tool_call_id") == null) {
                throw Wire.badRequest("messages[" + i + "]: a tool message needs tool_call_id");
            }
            ImageParts.check(content, "messages[" + i + "].content", false);
            String text = Prompt.contentText(content, "messages[" + i + "]");
            if ("system".equals(role) || "developer".equals(role)) {
                prompt.addSystem(text);
            } else {
                prompt.addMessage(role, text);
            }
        }
        JsonNode tool = ToolTurns.chosen(ToolTurns.openAiTools(body), ToolTurns.openAiChoice(body),
                ToolTurns.countRole(messages, "tool"));
        if (tool != null) {
            return new SimRequest(protocol(), model, idempotencyKey, prompt.systemText(), prompt.userText(),
                    prompt.promptText(), tool.get("parameters"), Json.text(tool, "name"), body, bodySha256);
        }
        return new SimRequest(protocol(), model, idempotencyKey, prompt.systemText(), prompt.userText(),
                prompt.promptText(), outputSchema(body.get("response_format"), messages), null, body, bodySha256);
    }

    @Override
    public JsonNode success(SimRequest request, Completion completion, long inputTokens) {
        ObjectNode answer = Json.object();
        answer.put("id", Wire.randomId("chatcmpl-"));
        answer.put("object", "chat.completion");
        answer.put("created", clock.instant().getEpochSecond());
        answer.put("model", request.model());
        ObjectNode choice = answer.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        boolean toolCall = completion instanceof Completion.Structured && request.toolName() != null;
        if (toolCall) {
            message.putNull("content");
            message.putArray("tool_calls").addObject().put("id", Wire.randomId("call_")).put("type", "function")
                    .putObject("function").put("name", request.toolName()).put("arguments", completion.text());
        } else {
            message.put("content", completion.text());
        }
        message.putNull("refusal");
        choice.putNull("logprobs");
        choice.put("finish_reason", toolCall ? "tool_calls"
                : completion instanceof Completion.Text text && text.cut() ? "length" : "stop");
        long outputTokens = Math.max(1, TokenCounter.approximate(completion.text()));
        ObjectNode usage = answer.putObject("usage");
        usage.put("prompt_tokens", inputTokens);
        usage.put("completion_tokens", outputTokens);
        usage.put("total_tokens", inputTokens + outputTokens);
        usage.putObject("prompt_tokens_details").put("cached_tokens", 0).put("audio_tokens", 0);
        usage.putObject("completion_tokens_details").put("reasoning_tokens", 0).put("audio_tokens", 0)
                .put("accepted_prediction_tokens", 0).put("rejected_prediction_tokens", 0);
        return answer;
    }

    @Override
    public List<SseEvent> events(SimRequest request, JsonNode success, Function<String, List<String>> pieces) {
        return OpenAiChatStream.events(request, success, pieces);
    }

    @Override
    public Usage usage(JsonNode success) {
        JsonNode usage = success.get("usage");
        if (usage == null || !usage.isObject()) {
            return null;
        }
        return new Usage(usage.path("prompt_tokens").asLong(), usage.path("completion_tokens").asLong(),
                usage.path("prompt_tokens_details").path("cached_tokens").asLong(0));
    }

    @Override
    public JsonNode error(int status, String message) {
        ObjectNode error = Json.object();
        ObjectNode detail = error.putObject("error");
        detail.put("message", message);
        detail.put("type", errorType(status));
        detail.putNull("param");
        detail.put("code", errorCode(status));
        return error;
    }

    @Override
    public void addRateLimitReset(Headers headers, long resetAfterMs, Instant now) {
        headers.set("x-ratelimit-reset-requests", duration(resetAfterMs));
    }

    /**
     * A duration as OpenAI's rate-limit headers write it (Go's {@code time.Duration} format): {@code 0s},
     * {@code 250ms}, {@code 1s}, {@code 1.5s}, {@code 6m0s}, {@code 1h2m3s}.
     */
    static String duration(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("a duration is >= 0, was " + ms);
        }
        if (ms == 0) {
            return "0s";
        }
        if (ms < 1000) {
            return ms + "ms";
        }
        long hours = ms / 3_600_000;
        long minutes = ms / 60_000 % 60;
        String seconds = Long.toString(ms / 1000 % 60);
        if (ms % 1000 != 0) {
            seconds += ("." + String.format("%03d", ms % 1000)).replaceAll("0+$", "");
        }
        if (hours > 0) {
            return hours + "h" + minutes + "m" + seconds + "s";
        }
        return minutes > 0 ? minutes + "m" + seconds + "s" : seconds + "s";
    }

    private void checkKey(String authorization) throws WireRejection {
        if (expectedApiKey == null) {
            return;
        }
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            throw new WireRejection(401, "You didn't provide an API key. Provide it in an Authorization header"
                    + " using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).");
        }
        if (!Wire.keyMatches(expectedApiKey, authorization.substring("Bearer ".length()))) {
            throw new WireRejection(401, "Incorrect API key provided.");
        }
    }

    private static JsonNode outputSchema(JsonNode responseFormat, JsonNode messages) throws WireRejection {
        if (responseFormat != null && "json_object".equals(Json.text(responseFormat, "type"))) {
            if (!messages.toString().toLowerCase(java.util.Locale.ROOT).contains("json")) {
                throw Wire.badRequest("'messages' must contain the word 'json' in some form, to use "
                        + "'response_format' of type 'json_object'.");
            }
            return JSON_OBJECT_ANSWER;
        }
        if (responseFormat == null || responseFormat.isNull()
                || !"json_schema".equals(Json.text(responseFormat, "type"))) {
            return null;
        }
        JsonNode schema = responseFormat.path("json_schema").get("schema");
        if (schema == null || !schema.isObject()) {
            throw Wire.badRequest("response_format.json_schema.schema must be a JSON Schema object");
        }
        return schema;
    }

    private static JsonNode jsonObjectAnswer() {
        ObjectNode schema = Json.object().put("type", "object");
        schema.putObject("properties").putObject("answer").put("type", "string");
        return schema;
    }

    private static String errorType(int status) {
        return switch (status) {
            case 429 -> "requests";
            case 408, 504 -> "timeout";
            default -> status >= 500 ? "server_error" : "invalid_request_error";
        };
    }

    private static String errorCode(int status) {
        return switch (status) {
            case 401 -> "invalid_api_key";
            case 403 -> "permission_denied";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 429 -> "rate_limit_exceeded";
            case 503 -> "service_unavailable";
            default -> status >= 500 ? "server_error" : "invalid_request";
        };
    }
}
