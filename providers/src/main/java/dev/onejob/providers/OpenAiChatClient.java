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
import java.util.UUID;

/**
 * The OpenAI Chat Completions adapter: {@code POST {base_url}/v1/chat/completions} with a strict
 * {@code json_schema} response format.
 *
 * <p>Consumes a provider of protocol {@code openai-chat}, a contract and its variables; produces a
 * {@link ProviderCall} whose successful answer is {@code choices[0].message.content}, parsed as JSON and checked
 * against the prompt's schema (or, for a free-text prompt, kept as {@code {"text": ...}}). Authenticates with {@code Authorization: Bearer}; the provider request id comes from
 * {@code x-request-id}, else the reply's {@code id}. Owns nothing; sending is shared ({@link ProviderTransport}).
 */
public final class OpenAiChatClient implements ProviderClient {

    static final WireFormat WIRE = new WireFormat("/v1/chat/completions", "x-request-id",
            OpenAiChatClient::headers, OpenAiChatClient::answer, OpenAiChatClient::usage,
            body -> body.put("stream", true).putObject("stream_options").put("include_usage", true), SseReply::openAi);

    private final ProviderTransport transport;

    OpenAiChatClient(ProviderTransport transport) {
        this.transport = transport;
    }

    @Override
    public ProviderCall call(ProviderConfig provider, Contract contract, JsonNode variables, UUID attemptId,
                             ChunkSink sink) {
        ProviderClients.requireProtocol(provider, ProviderProtocol.OPENAI_CHAT);
        return transport.call(provider, contract, variables, attemptId, WIRE, prompt -> body(provider, prompt), sink);
    }

    /**
     * The request: the system text and the conversation as messages, the sampling parameters the prompt sets, and a
     * strict {@code json_schema} response format when the answer must be structured.
     */
    static ObjectNode body(ProviderConfig provider, Prompt prompt) {
        ObjectNode body = Json.object();
        body.put("model", provider.model());
        ArrayNode messages = body.putArray("messages");
        if (!prompt.system().isEmpty()) {
            messages.addObject().put("role", "system").put("content", prompt.system());
        }
        prompt.turns().forEach(turn -> messages.addObject().put("role", turn.role()).put("content", turn.text()));
        if (prompt.temperature() != null) {
            body.put("temperature", prompt.temperature());
        }
        if (prompt.topP() != null) {
            body.put("top_p", prompt.topP());
        }
        body.put("max_tokens", prompt.maxTokens());
        if (!prompt.stop().isEmpty()) {
            prompt.stop().forEach(body.putArray("stop")::add);
        }
        if (prompt.structured()) {
            ObjectNode format = body.putObject("response_format").put("type", "json_schema");
            ObjectNode schema = format.putObject("json_schema").put("name", prompt.schemaName());
            schema.set("schema", prompt.outputSchema());
            schema.put("strict", true);
        }
        return body;
    }

    private static void headers(HttpRequest.Builder request, String apiKey) {
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
    }

    /**
     * {@code usage.prompt_tokens} (which includes the cached part), {@code completion_tokens} and
     * {@code prompt_tokens_details.cached_tokens}; null when the reply has no usable usage block.
     */
    static Usage usage(JsonNode reply) {
        JsonNode usage = reply.path("usage");
        long input = WireFormat.count(usage, "prompt_tokens");
        long output = WireFormat.count(usage, "completion_tokens");
        long cached = WireFormat.count(usage.path("prompt_tokens_details"), "cached_tokens");
        if (input < 0 || output < 0 || cached < -1 || cached > input) {
            return null;
        }
        return new Usage(input, output, Math.max(0, cached));
    }

    private static WireFormat.Answer answer(JsonNode reply, Prompt prompt) {
        JsonNode message = reply.path("choices").path(0).path("message");
        JsonNode content = message.get("content");
        if (content == null || !content.isTextual()) {
            String refusal = message.path("refusal").isTextual() ? " (refusal: " + message.get("refusal").asText() + ")"
                    : "";
            return WireFormat.Answer.unusable("the reply has no text in choices[0].message.content" + refusal,
                    Json.write(reply));
        }
        String text = content.asText();
        FinishReason reason = FinishReason.fromOpenAi(reply.path("choices").path(0).path("finish_reason")
                .asText(null));
        if (!prompt.structured()) {
            return WireFormat.Answer.found(Json.object().put(Prompt.TEXT, text), text, reason);
        }
        try {
            return WireFormat.Answer.found(Json.parse(text), text, reason);
        } catch (IllegalArgumentException e) {
            return WireFormat.Answer.unusable("the answer is " + e.getMessage(), text);
        }
    }
}
