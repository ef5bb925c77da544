package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.contract.FinishReason;
import dev.onejob.core.contract.Prompt;
import java.net.http.HttpRequest;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What differs between provider wire protocols once the request body is built: where it goes, how it
 * authenticates, where the request id is and where the answer sits in a 2xx reply.
 *
 * <p>Made by {@link OpenAiChatClient} and {@link AnthropicMessagesClient}; consumed by {@link ProviderTransport}.
 *
 * @param path            appended to the provider's base URL, e.g. {@code /v1/chat/completions}
 * @param requestIdHeader the response header with the provider's request id (else the body's {@code id} is used)
 * @param headers         adds the protocol's headers for an API key ({@code null} = none configured)
 * @param answer          finds the answer to a prompt in a parsed 2xx reply
 * @param usage           reads the tokens a parsed 2xx reply says were billed, or null when it reports none usable
 * @param asStream        turns a request body into the same request asking for a stream
 * @param stream          reads such a stream into the reply the unstreamed request would have had
 */
record WireFormat(String path, String requestIdHeader, BiConsumer<HttpRequest.Builder, String> headers,
                  BiFunction<JsonNode, Prompt, Answer> answer, Function<JsonNode, Usage> usage,
                  Consumer<ObjectNode> asStream,
                  Function<ChunkSink, SseReply> stream) {

    /** A count the reply states, or -1 when the field is absent; a field of another type is no count at all. */
    static long count(JsonNode usage, String field) {
        JsonNode value = usage.get(field);
        if (value == null || value.isNull()) {
            return -1;
        }
        return value.isIntegralNumber() && value.canConvertToLong() && value.asLong() >= 0 ? value.asLong() : -2;
    }

    /**
     * The answer found in a reply: the JSON to check against the contract, or why there is none usable.
     *
     * @param json    the answer, or {@code null} when {@code problem} is set
     * @param text    the answer as the provider sent it, kept for the audit when it breaks the contract
     * @param problem why the reply holds no usable JSON answer, or {@code null}
     * @param finishReason why the provider stopped writing it, or {@code null} when it said nothing onejob maps
     */
    record Answer(JsonNode json, String text, String problem, FinishReason finishReason) {

        static Answer found(JsonNode json, String text, FinishReason finishReason) {
            return new Answer(json, text, null, finishReason);
        }

        static Answer unusable(String problem, String text) {
            return new Answer(null, text, problem, null);
        }
    }
}
