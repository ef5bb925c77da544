package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.contract.Contract;
import java.util.UUID;

/**
 * Starts one call of a contract at a provider.
 *
 * <p>Consumes a provider definition, a contract, the job's variables and the attempt id (sent as the
 * {@code Idempotency-Key} header); produces a {@link ProviderCall} whose futures yield {@link CallOutcome}s.
 * Implemented per wire protocol by {@link OpenAiChatClient} and {@link AnthropicMessagesClient}, and by
 * {@link ProviderClients}, which picks one by {@link ProviderConfig#protocol()}.
 */
public interface ProviderClient {

    /**
     * Sends the request and returns at once: never blocks on the network, so a Kafka poll thread may call it.
     * Problems found before sending (a missing API key) come back as an already completed call, never as an
     * exception.
     */
    default ProviderCall call(ProviderConfig provider, Contract contract, JsonNode variables, UUID attemptId) {
        return call(provider, contract, variables, attemptId, null);
    }

    /**
     * The same call, streamed when {@code sink} is not null: the provider is asked for a stream, and each piece of
     * its answer goes to {@code sink} as it arrives. The outcome is what the unstreamed call's would be.
     */
    ProviderCall call(ProviderConfig provider, Contract contract, JsonNode variables, UUID attemptId, ChunkSink sink);
}
