package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.FinishReason;
import dev.onejob.core.contract.Prompt;
import dev.onejob.core.json.Json;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * The Anthropic Messages adapter: {@code POST {base_url}/v1/messages} with the answer forced into one tool call.
 *
 * <p>Consumes a provider of protocol {@code anthropic-messages}, a contract and its variables; produces a
 * {@link ProviderCall} whose successful answer is the {@code input} of the first {@code tool_use} block, checked
 * against the prompt's schema (a reply without {@code tool_use} breaks the contract), or for a free-text prompt
 * (no tool sent) the text blocks joined, kept as {@code {"text": ...}}. Authenticates with
 * {@code x-api-key} and sends {@code anthropic-version}; the provider request id comes from {@code request-id},
 * else the reply's {@code id}. Owns nothing; sending is shared ({@link ProviderTransport}).
 */
public final class AnthropicMessagesClient implements ProviderClient {

    static final String API_VERSION = "2023-06-01";
    static final String TOOL_NAME = "emit_result";
    /** How an image that travels inside its URL begins ({@code data:image/png;base64,...}). */
    private static final String DATA_URL = "data:image/";
    static final WireFormat WIRE = new WireFormat("/v1/messages", "request-id", AnthropicMessagesClient::headers,
            AnthropicMessagesClient::answer, AnthropicMessagesClient::usage, body -> body.put("stream", true),
            SseReply::anthropic);

    private final ProviderTransport transport;

    AnthropicMessagesClient(ProviderTransport transport) {
        this.transport = transport;
    }

    @Override
    public ProviderCall call(ProviderConfig provider, Contract contract, JsonNode variables, UUID attemptId,
                             ChunkSink sink) {
        ProviderClients.requireProtocol(provider, ProviderProtocol.ANTHROPIC_MESSAGES);
        return transport.call(provider, contract, variables, attemptId, WIRE, prompt -> {
            ObjectNode body = prompt(provider.model(), prompt);
            body.put("max_tokens", prompt.maxTokens());
            if (prompt.temperature() != null) {
                body.put("temperature", prompt.temperature());
            }
            if (prompt.topP() != null) {
                body.put("top_p", prompt.topP());
            }
            if (!prompt.stop().isEmpty()) {
                prompt.stop().forEach(body.putArray("stop_sequences")::add);
            }
            Prompt.ANTHROPIC_OPTIONS.stream().filter(prompt.options()::containsKey)
                    .forEach(name -> body.set(name, prompt.options().get(name)));
            return body;
        }, sink);
    }

    /**
     * The fields a message and its token count share: model, system, the conversation and, for a structured answer,
     * the forced tool whose input schema is the output schema.
     */
    static ObjectNode prompt(String model, Prompt prompt) {
        ObjectNode body = Json.object();
        body.put("model", model);
        if (!prompt.system().isEmpty()) {
            body.put("system", prompt.system());
        }
        messages(body.putArray("messages"), prompt.turns());
        tools(body, prompt.tools());
        if (prompt.structured()) {
            body.putArray("tools").addObject()
                    .put("name", TOOL_NAME)
                    .put("description", "Return the result")
                    .set("input_schema", prompt.outputSchema());
            body.putObject("tool_choice").put("type", "tool").put("name", TOOL_NAME);
        }
        return body;
    }

    /**
     * The conversation: an assistant's tool calls become {@code tool_use} blocks after its text, and tool messages
     * the {@code tool_result} blocks of one user message (consecutive ones together, as Anthropic wants them).
     */
    private static void messages(ArrayNode messages, List<Prompt.Turn> turns) {
        ArrayNode results = null;
        for (Prompt.Turn turn : turns) {
            if ("tool".equals(turn.role())) {
                if (results == null) {
                    results = messages.addObject().put("role", "user").putArray("content");
                }
                ObjectNode result = results.addObject().put("type", "tool_result")
                        .put("tool_use_id", turn.toolCallId()).put("content", turn.text());
                if (turn.error()) {
                    result.put("is_error", true);
                }
                continue;
            }
            results = null;
            ObjectNode message = messages.addObject().put("role", turn.role());
            if (!turn.parts().isEmpty()) {
                ArrayNode content = message.putArray("content");
                turn.parts().forEach(part -> part(content.addObject(), part));
                continue;
            }
            if (turn.toolCalls().isEmpty()) {
                message.put("content", turn.text());
                continue;
            }
            ArrayNode content = message.putArray("content");
            if (!turn.text().isEmpty()) {
                content.addObject().put("type", "text").put("text", turn.text());
            }
            turn.toolCalls().forEach(call -> content.addObject().put("type", "tool_use").put("id", call.id())
                    .put("name", call.name()).set("input", call.arguments()));
        }
    }

    /**
     * One part of a message that shows images: a text block, or an image block whose source is the data a
     * {@code data:} URL carries ({@code base64} with its media type) or the URL itself. OpenAI's {@code detail} has no
     * Anthropic counterpart and is left out.
     */
    private static void part(ObjectNode block, Prompt.Part part) {
        if (!part.image()) {
            block.put("type", "text").put("text", part.text());
            return;
        }
        ObjectNode source = block.put("type", "image").putObject("source");
        String url = part.imageUrl();
        if (url.startsWith(DATA_URL)) {
            int comma = url.indexOf(";base64,");
            source.put("type", "base64").put("media_type", url.substring("data:".length(), comma))
                    .put("data", url.substring(comma + ";base64,".length()));
        } else {
            source.put("type", "url").put("url", url);
        }
    }

    /** The call's tools, and its choice as Anthropic spells it ({@code required} is {@code any}). */
    private static void tools(ObjectNode body, Prompt.Tools tools) {
        if (tools == null) {
            return;
        }
        ArrayNode list = body.putArray("tools");
        for (Prompt.Tool tool : tools.list()) {
            ObjectNode entry = list.addObject().put("name", tool.name());
            if (!tool.description().isEmpty()) {
                entry.put("description", tool.description());
            }
            entry.set("input_schema", tool.parameters());
        }
        ObjectNode choice = body.putObject("tool_choice").put("type", switch (tools.choice()) {
            case "required" -> "any";
            case "tool" -> "tool";
            case "none" -> "none";
            default -> "auto";
        });
        if (tools.name() != null) {
            choice.put("name", tools.name());
        }
        if (Boolean.FALSE.equals(tools.parallel()) && !"none".equals(tools.choice())) {
            choice.put("disable_parallel_tool_use", true);
        }
    }

    static void headers(HttpRequest.Builder request, String apiKey) {
        if (apiKey != null) {
            request.header("x-api-key", apiKey);
        }
        request.header("anthropic-version", API_VERSION);
    }

    /**
     * {@code usage.input_tokens} counts only the uncached input; cache reads ({@code cache_read_input_tokens}) and
     * cache writes ({@code cache_creation_input_tokens}) are input too. The cached part is the reads. Null when the
     * reply has no usable usage block.
     */
    static Usage usage(JsonNode reply) {
        JsonNode usage = reply.path("usage");
        long input = WireFormat.count(usage, "input_tokens");
        long output = WireFormat.count(usage, "output_tokens");
        long reads = WireFormat.count(usage, "cache_read_input_tokens");
        long writes = WireFormat.count(usage, "cache_creation_input_tokens");
        if (input < 0 || output < 0 || reads < -1 || writes < -1) {
            return null;
        }
        long cached = Math.max(0, reads);
        return new Usage(input + cached + Math.max(0, writes), output, cached);
    }

    private static WireFormat.Answer answer(JsonNode reply, Prompt prompt) {
        String stopReason = reply.path("stop_reason").asText(null);
        if (prompt.tools() != null && hasToolUse(reply)) {
            ObjectNode answer = Json.object().put(Prompt.TEXT, Objects.requireNonNullElse(text(reply), ""));
            ArrayNode calls = answer.putArray(Prompt.TOOL_CALLS);
            for (JsonNode block : reply.path("content")) {
                if ("tool_use".equals(block.path("type").asText())) {
                    calls.addObject().put("id", block.path("id").asText("")).put("name", block.path("name").asText(""))
                            .set("arguments", block.path("input"));
                }
            }
            return WireFormat.Answer.found(answer, Json.write(answer), FinishReason.fromAnthropic(stopReason));
        }
        if (!prompt.structured()) {
            String text = text(reply);
            return text == null ? WireFormat.Answer.unusable("the reply has no text block (stop_reason "
                    + reply.path("stop_reason").asText("missing") + ")", Json.write(reply))
                    : WireFormat.Answer.found(Json.object().put(Prompt.TEXT, text), text,
                    FinishReason.fromAnthropic(stopReason));
        }
        // The forced tool is how onejob asks for structured output: its use is the answer's natural end.
        FinishReason reason = "tool_use".equals(stopReason) ? FinishReason.STOP : FinishReason.fromAnthropic(stopReason);
        for (JsonNode block : reply.path("content")) {
            if ("tool_use".equals(block.path("type").asText())) {
                JsonNode input = block.path("input");
                return input.isObject() ? WireFormat.Answer.found(input, Json.write(input), reason)
                        : WireFormat.Answer.unusable("the tool_use block has no input object", Json.write(block));
            }
        }
        String text = text(reply);
        return WireFormat.Answer.unusable("the reply has no tool_use block (stop_reason "
                + reply.path("stop_reason").asText("missing") + ")", text != null ? text : Json.write(reply));
    }

    private static boolean hasToolUse(JsonNode reply) {
        for (JsonNode block : reply.path("content")) {
            if ("tool_use".equals(block.path("type").asText())) {
                return true;
            }
        }
        return false;
    }

    /** The reply's text blocks, joined with newlines; null when it has none. */
    private static String text(JsonNode reply) {
        StringBuilder text = new StringBuilder();
        boolean any = false;
        for (JsonNode block : reply.path("content")) {
            if ("text".equals(block.path("type").asText()) && block.path("text").isTextual()) {
                text.append(any ? "\n" : "").append(block.get("text").asText());
                any = true;
            }
        }
        return any ? text.toString() : null;
    }
}
