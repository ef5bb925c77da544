package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.json.Json;
import java.net.http.HttpRequest;
import java.util.UUID;

/**
 * The Anthropic Messages adapter: {@code POST {base_url}/v1/messages} with the answer forced into one tool call.
 *
 * <p>Consumes a provider of protocol {@code anthropic-messages}, a contract and its variables; produces a
 * {@link ProviderCall} whose successful answer is the {@code input} of the first {@code tool_use} block, checked
 * against the contract (a reply without {@code tool_use} breaks the contract). Authenticates with
 * {@code x-api-key} and sends {@code anthropic-version}; the provider request id comes from {@code request-id},
 * else the reply's {@code id}. Owns nothing; sending is shared ({@link ProviderTransport}).
 */
public final class AnthropicMessagesClient implements ProviderClient {

    static final String API_VERSION = "2023-06-01";
    static final String TOOL_NAME = "emit_result";
    static final WireFormat WIRE = new WireFormat("/v1/messages", "request-id", AnthropicMessagesClient::headers,
            AnthropicMessagesClient::answer, AnthropicMessagesClient::usage);

    private final ProviderTransport transport;

    AnthropicMessagesClient(ProviderTransport transport) {
        this.transport = transport;
    }

    @Override
    public ProviderCall call(ProviderConfig provider, Contract contract, JsonNode variables, UUID attemptId) {
        if (provider.protocol() != ProviderProtocol.ANTHROPIC_MESSAGES) {
            throw new IllegalArgumentException("provider " + provider.id() + " speaks " + provider.protocol().wireName()
                    + ", not anthropic-messages");
        }
        return transport.call(provider, contract, attemptId, WIRE, () -> {
            ObjectNode body = prompt(provider.model(), contract.system().render(variables),
                    contract.user().render(variables), contract.outputSchema());
            body.put("max_tokens", contract.maxTokens());
            body.put("temperature", contract.temperature());
            return body;
        });
    }

    /** The fields a message and its token count share: model, system, the user message and the forced tool. */
    static ObjectNode prompt(String model, String system, String user, JsonNode outputSchema) {
        ObjectNode body = Json.object();
        body.put("model", model);
        body.put("system", system);
        body.putArray("messages").addObject().put("role", "user").put("content", user);
        body.putArray("tools").addObject()
                .put("name", TOOL_NAME)
                .put("description", "Return the result")
                .set("input_schema", outputSchema);
        body.putObject("tool_choice").put("type", "tool").put("name", TOOL_NAME);
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

    private static WireFormat.Answer answer(JsonNode reply) {
        for (JsonNode block : reply.path("content")) {
            if ("tool_use".equals(block.path("type").asText())) {
                JsonNode input = block.path("input");
                return input.isObject() ? WireFormat.Answer.found(input, Json.write(input))
                        : WireFormat.Answer.unusable("the tool_use block has no input object", Json.write(block));
            }
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode block : reply.path("content")) {
            if (block.path("text").isTextual()) {
                text.append(text.length() == 0 ? "" : "\n").append(block.get("text").asText());
            }
        }
        return WireFormat.Answer.unusable("the reply has no tool_use block (stop_reason "
                + reply.path("stop_reason").asText("missing") + ")", text.length() > 0 ? text.toString()
                : Json.write(reply));
    }
}
