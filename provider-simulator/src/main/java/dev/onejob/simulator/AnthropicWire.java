package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.Function;

/**
 * The Anthropic Messages wire protocol: {@code POST /v1/messages} and {@code POST /v1/messages/count_tokens}
 * (one instance per endpoint).
 *
 * <p>Consumes {@code x-api-key} (or {@code Authorization: Bearer KEY}), the required {@code anthropic-version}
 * header and bodies with {@code model}, {@code system}, {@code messages}, {@code max_tokens} (messages only),
 * {@code tools}, {@code tool_choice}, {@code output_config} and {@code stream} (a boolean; messages only). The
 * answer's schema is the {@code input_schema} of the tool {@code tool_choice} forces
 * ({@code {"type":"tool","name":...}}, or {@code {"type":"any"}}: the first tool); else the
 * {@code output_config.format} schema (structured output, {@code {"type":"json_schema","schema":{...}}}); else the
 * first tool's; else none.
 *
 * <p>Produces {@code message} objects whose content is one {@code tool_use} block when a tool was chosen, else one
 * {@code text} block (the JSON text for structured output, prose without a schema, or whatever the model "said"
 * instead of the format), with
 * {@code usage} {@code input_tokens}, {@code output_tokens} and the (zero) {@code cache_creation_input_tokens} and
 * {@code cache_read_input_tokens}; for {@code "stream": true} the same answer as named events
 * ({@link AnthropicMessageStream}); {@code {"input_tokens":N}} for counting; and errors shaped
 * {@code {"type":"error","error":{"type","message"}}} with Anthropic's types (429 {@code rate_limit_error}, 503 and
 * 529 {@code overloaded_error}), never streamed; a refusal's rate-limit reset is
 * {@code anthropic-ratelimit-requests-reset}, an RFC 3339 instant. Owns nothing but the expected API key.
 */
final class AnthropicWire implements Wire {

    private final Protocol protocol;
    private final String expectedApiKey;

    private AnthropicWire(Protocol protocol, String expectedApiKey) {
        this.protocol = protocol;
        this.expectedApiKey = expectedApiKey;
    }

    static AnthropicWire messages(String expectedApiKey) {
        return new AnthropicWire(Protocol.ANTHROPIC_MESSAGES, expectedApiKey);
    }

    static AnthropicWire countTokens(String expectedApiKey) {
        return new AnthropicWire(Protocol.ANTHROPIC_COUNT_TOKENS, expectedApiKey);
    }

    @Override
    public Protocol protocol() {
        return protocol;
    }

    @Override
    public String requestIdHeader() {
        return "request-id";
    }

    @Override
    public boolean appliesBehaviours() {
        return protocol == Protocol.ANTHROPIC_MESSAGES;
    }

    @Override
    public boolean streams(SimRequest request) {
        return protocol == Protocol.ANTHROPIC_MESSAGES && request.streamed();
    }

    @Override
    public SimRequest read(Headers headers, JsonNode body, String idempotencyKey, String bodySha256)
            throws WireRejection {
        checkHeaders(headers);
        String model = Json.text(body, "model");
        if (model == null) {
            throw Wire.badRequest("model: Field required");
        }
        if (protocol == Protocol.ANTHROPIC_MESSAGES && !body.path("max_tokens").isIntegralNumber()) {
            throw Wire.badRequest("max_tokens: Field required");
        }
        Prompt prompt = new Prompt();
        JsonNode system = body.get("system");
        if (system != null && !system.isNull()) {
            prompt.addSystem(Prompt.contentText(system, "system"));
        }
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw Wire.badRequest("messages: at least one message is required");
        }
        for (int i = 0; i < messages.size(); i++) {
            ImageParts.check(messages.get(i).get("content"), "messages." + i + ".content", true);
            prompt.addMessage(Json.text(messages.get(i), "role"),
                    Prompt.contentText(messages.get(i).get("content"), "messages." + i + ".content"));
        }
        Wire.checkStreamFlag(body);
        JsonNode tool = chosenTool(body, ToolTurns.countBlocks(messages, "tool_result"));
        JsonNode formatSchema = outputFormatSchema(body);
        if (formatSchema != null && (tool == null || !toolForced(body))) {
            return new SimRequest(protocol, model, idempotencyKey, prompt.systemText(), prompt.userText(),
                    prompt.promptText(), formatSchema, null, body, bodySha256);
        }
        return new SimRequest(protocol, model, idempotencyKey, prompt.systemText(), prompt.userText(),
                prompt.promptText(), tool == null ? null : tool.get("input_schema"),
                tool == null ? null : Json.text(tool, "name"), body, bodySha256);
    }

    @Override
    public JsonNode success(SimRequest request, Completion completion, long inputTokens) {
        if (protocol == Protocol.ANTHROPIC_COUNT_TOKENS) {
            return Json.object().put("input_tokens", inputTokens);
        }
        ObjectNode message = Json.object();
        message.put("id", Wire.randomId("msg_"));
        message.put("type", "message");
        message.put("role", "assistant");
        message.put("model", request.model());
        ArrayNode content = message.putArray("content");
        boolean toolUse = completion instanceof Completion.Structured structured && request.toolName() != null;
        if (toolUse) {
            ObjectNode block = content.addObject();
            block.put("type", "tool_use");
            block.put("id", Wire.randomId("toolu_"));
            block.put("name", request.toolName());
            block.set("input", ((Completion.Structured) completion).answer());
        } else {
            content.addObject().put("type", "text").put("text", completion.text());
        }
        message.put("stop_reason", toolUse ? "tool_use"
                : completion instanceof Completion.Text text && text.cut() ? "max_tokens" : "end_turn");
        message.putNull("stop_sequence");
        ObjectNode usage = message.putObject("usage");
        usage.put("input_tokens", inputTokens);
        usage.put("cache_creation_input_tokens", 0);
        usage.put("cache_read_input_tokens", 0);
        usage.put("output_tokens", Math.max(1, TokenCounter.approximate(completion.text())));
        return message;
    }

    @Override
    public List<SseEvent> events(SimRequest request, JsonNode success, Function<String, List<String>> pieces) {
        return AnthropicMessageStream.events(success, pieces);
    }

    /** Anthropic reports cache reads apart from {@code input_tokens}; they are input tokens all the same. */
    @Override
    public Usage usage(JsonNode success) {
        JsonNode usage = success.get("usage");
        if (protocol == Protocol.ANTHROPIC_COUNT_TOKENS || usage == null || !usage.isObject()) {
            return null;
        }
        long cached = usage.path("cache_read_input_tokens").asLong(0);
        return new Usage(usage.path("input_tokens").asLong() + cached, usage.path("output_tokens").asLong(), cached);
    }

    @Override
    public JsonNode error(int status, String message) {
        ObjectNode error = Json.object().put("type", "error");
        error.putObject("error").put("type", errorType(status)).put("message", message);
        return error;
    }

    /** An RFC 3339 UTC instant with millisecond precision, e.g. {@code 2025-01-01T12:00:30.250Z}. */
    @Override
    public void addRateLimitReset(Headers headers, long resetAfterMs, Instant now) {
        headers.set("anthropic-ratelimit-requests-reset",
                now.truncatedTo(ChronoUnit.MILLIS).plusMillis(resetAfterMs).toString());
    }

    /** The key comes in {@code x-api-key}, or as {@code Authorization: Bearer KEY}, which anthropic-java 3.x sends. */
    private void checkHeaders(Headers headers) throws WireRejection {
        String presented = headers.getFirst("x-api-key");
        String authorization = headers.getFirst("Authorization");
        if (presented == null && authorization != null && authorization.startsWith("Bearer ")) {
            presented = authorization.substring("Bearer ".length());
        }
        if (expectedApiKey != null && !Wire.keyMatches(expectedApiKey, presented)) {
            throw new WireRejection(401, "invalid x-api-key");
        }
        if (headers.getFirst("anthropic-version") == null) {
            throw Wire.badRequest("anthropic-version: header is required");
        }
    }

    /** The {@code output_config.format} JSON Schema (structured output), or {@code null} when the request has none. */
    private static JsonNode outputFormatSchema(JsonNode body) throws WireRejection {
        JsonNode format = body.path("output_config").get("format");
        if (format == null || format.isNull()) {
            return null;
        }
        if (!"json_schema".equals(Json.text(format, "type"))) {
            throw Wire.badRequest("output_config.format.type: Input should be 'json_schema'");
        }
        JsonNode schema = format.get("schema");
        if (schema == null || !schema.isObject()) {
            throw Wire.badRequest("output_config.format.schema: Field required");
        }
        return schema;
    }

    /** Whether {@code tool_choice} makes the model call a tool: {@code {"type":"tool"}} or {@code {"type":"any"}}. */
    private static boolean toolForced(JsonNode body) {
        String type = Json.text(body.path("tool_choice"), "type");
        return "tool".equals(type) || "any".equals(type);
    }

    /** The tool the model calls this turn ({@link ToolTurns#chosen}); none for "none" or no tools. */
    private static JsonNode chosenTool(JsonNode body, int answered) throws WireRejection {
        JsonNode tools = body.get("tools");
        if (tools == null || tools.isNull()) {
            return null;
        }
        if (!tools.isArray()) {
            throw Wire.badRequest("tools: must be an array");
        }
        for (int i = 0; i < tools.size(); i++) {
            if (Json.text(tools.get(i), "name") == null || !tools.get(i).path("input_schema").isObject()) {
                throw Wire.badRequest("tools." + i + ": name and input_schema are required");
            }
        }
        JsonNode choice = body.path("tool_choice");
        String type = Json.text(choice, "type");
        String named = "tool".equals(type) ? Json.text(choice, "name") : null;
        if (named != null && ToolTurns.named(tools, named) == null) {
            throw Wire.badRequest("tool_choice: tool '" + named + "' is not among the request's tools");
        }
        String neutral = type == null ? "auto" : "any".equals(type) ? "required" : type;
        JsonNode chosen = ToolTurns.chosen(tools, new ToolTurns.Choice(neutral, named), answered);
        return chosen == null ? null : ((ObjectNode) chosen.deepCopy())
                .set("parameters", chosen.get("input_schema"));
    }

    private static String errorType(int status) {
        return switch (status) {
            case 401 -> "authentication_error";
            case 402 -> "billing_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 408, 504 -> "timeout_error";
            case 503, 529 -> "overloaded_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        };
    }
}
