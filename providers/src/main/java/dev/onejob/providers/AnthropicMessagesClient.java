package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.FinishReason;
import dev.onejob.core.contract.Prompt;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.onejob.core.json.Json;
import java.net.http.HttpRequest;
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
        ArrayNode messages = body.putArray("messages");
        prompt.turns().forEach(turn -> messages.addObject().put("role", turn.role()).put("content", turn.text()));
        if (prompt.structured()) {
            body.putArray("tools").addObject()
                    .put("name", TOOL_NAME)
                    .put("description", "Return the result")
                    .set("input_schema", prompt.outputSchema());
            body.putObject("tool_choice").put("type", "tool").put("name", TOOL_NAME);
        }
        return body;
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
