package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.contract.Prompt;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.json.Json;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/**
 * Asks an Anthropic Messages provider how many input tokens a prompt takes:
 * {@code POST {base_url}/v1/messages/count_tokens} with the same headers, system, message and forced tool as the
 * real call, so the count includes the tool definition.
 *
 * <p>Consumes a provider, the rendered prompt texts and the output schema; produces {@code input_tokens}.
 * Blocking, for certification and other work off the Kafka poll thread. Owns nothing.
 */
public final class AnthropicTokenCounter {

    private static final WireFormat WIRE = new WireFormat("/v1/messages/count_tokens", "request-id",
            AnthropicMessagesClient::headers, (reply, prompt) -> null, reply -> null, body -> { },
            sink -> null);

    /** The count could not be had; the message says why and never holds the API key. */
    public static final class CountFailed extends Exception {
        CountFailed(String message) {
            super(message);
        }
    }

    private final ProviderTransport transport;

    AnthropicTokenCounter(ProviderTransport transport) {
        this.transport = transport;
    }

    /** The {@code input_tokens} the provider counts for this prompt; waits at most the provider's hard timeout. */
    public long count(ProviderConfig provider, Prompt prompt) throws CountFailed, InterruptedException {
        if (provider.protocol() != ProviderProtocol.ANTHROPIC_MESSAGES) {
            throw new IllegalArgumentException("provider " + provider.id() + " does not speak anthropic-messages");
        }
        String apiKey;
        try {
            apiKey = transport.apiKey(provider);
        } catch (ApiKeys.Problem problem) {
            throw new CountFailed(problem.getMessage());
        }
        byte[] body = Json.write(AnthropicMessagesClient.prompt(provider.model(), prompt))
                .getBytes(StandardCharsets.UTF_8);
        HttpRequest request = transport.request(provider, WIRE, apiKey, HttpRequest.BodyPublishers.ofByteArray(body))
                .timeout(provider.hardTimeout()).build();
        HttpResponse<String> response;
        try {
            // The answer is a few bytes; an error's is only read for its message.
            response = transport.http().send(request, BoundedBody.text(BoundedBody.ERROR_BYTES_LIMIT));
        } catch (IOException e) {
            throw new CountFailed(ApiKeys.redact("counting tokens at provider " + provider.id() + " failed: " + e,
                    apiKey));
        }
        return inputTokens(provider, response, apiKey);
    }

    private static long inputTokens(ProviderConfig provider, HttpResponse<String> response, String apiKey)
            throws CountFailed {
        JsonNode reply;
        try {
            reply = Json.parse(response.body());
        } catch (IllegalArgumentException e) {
            reply = Json.object();
        }
        if (response.statusCode() != 200 || !reply.path("input_tokens").isIntegralNumber()) {
            String detail = reply.path("error").path("message").asText("no input_tokens in the reply");
            throw new CountFailed(ApiKeys.redact("counting tokens at provider " + provider.id() + " answered HTTP "
                    + response.statusCode() + ": " + detail, apiKey));
        }
        return reply.get("input_tokens").asLong();
    }
}
