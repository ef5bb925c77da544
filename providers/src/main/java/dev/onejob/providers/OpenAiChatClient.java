package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.json.Json;
import java.net.http.HttpRequest;
import java.util.UUID;

/**
 * The OpenAI Chat Completions adapter: {@code POST {base_url}/v1/chat/completions} with a strict
 * {@code json_schema} response format.
 *
 * <p>Consumes a provider of protocol {@code openai-chat}, a contract and its variables; produces a
 * {@link ProviderCall} whose successful answer is {@code choices[0].message.content} parsed as JSON and checked
 * against the contract. Authenticates with {@code Authorization: Bearer}; the provider request id comes from
 * {@code x-request-id}, else the reply's {@code id}. Owns nothing; sending is shared ({@link ProviderTransport}).
 */
public final class OpenAiChatClient implements ProviderClient {

    static final WireFormat WIRE = new WireFormat("/v1/chat/completions", "x-request-id",
            OpenAiChatClient::headers, OpenAiChatClient::answer, OpenAiChatClient::usage);
    private static final int MAX_SCHEMA_NAME = 64;

    private final ProviderTransport transport;

    OpenAiChatClient(ProviderTransport transport) {
        this.transport = transport;
    }

    @Override
    public ProviderCall call(ProviderConfig provider, Contract contract, JsonNode variables, UUID attemptId) {
        if (provider.protocol() != ProviderProtocol.OPENAI_CHAT) {
            throw new IllegalArgumentException("provider " + provider.id() + " speaks " + provider.protocol().wireName()
                    + ", not openai-chat");
        }
        return transport.call(provider, contract, attemptId, WIRE, () -> body(provider, contract, variables));
    }

    static ObjectNode body(ProviderConfig provider, Contract contract, JsonNode variables) {
        ObjectNode body = Json.object();
        body.put("model", provider.model());
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", contract.system().render(variables));
        messages.addObject().put("role", "user").put("content", contract.user().render(variables));
        body.put("temperature", contract.temperature());
        body.put("max_tokens", contract.maxTokens());
        ObjectNode format = body.putObject("response_format").put("type", "json_schema");
        ObjectNode schema = format.putObject("json_schema").put("name", schemaName(contract.id()));
        schema.set("schema", contract.outputSchema());
        schema.put("strict", true);
        return body;
    }

    /** OpenAI accepts {@code [a-zA-Z0-9_-]{1,64}} as a schema name. */
    static String schemaName(String contractId) {
        String name = contractId.replaceAll("[^a-zA-Z0-9_-]", "_");
        if (name.isEmpty()) {
            return "result";
        }
        return name.length() <= MAX_SCHEMA_NAME ? name : name.substring(0, MAX_SCHEMA_NAME);
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

    private static WireFormat.Answer answer(JsonNode reply) {
        JsonNode message = reply.path("choices").path(0).path("message");
        JsonNode content = message.get("content");
        if (content == null || !content.isTextual()) {
            String refusal = message.path("refusal").isTextual() ? " (refusal: " + message.get("refusal").asText() + ")"
                    : "";
            return WireFormat.Answer.unusable("the reply has no text in choices[0].message.content" + refusal,
                    Json.write(reply));
        }
        String text = content.asText();
        try {
            return WireFormat.Answer.found(Json.parse(text), text);
        } catch (IllegalArgumentException e) {
            return WireFormat.Answer.unusable("the answer is " + e.getMessage(), text);
        }
    }
}
