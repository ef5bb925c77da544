package dev.onejob.core.config;

import dev.onejob.core.billing.Prices;
import java.net.URI;
import java.time.Duration;

/**
 * One provider from the providers file. {@code apiKeyEnv} names the environment variable holding the key; the key
 * itself is read only where the call is made and never kept in config, logs or events. {@code prices} is what its
 * model charges, or {@code null} when the file names none (its calls' usage is recorded, their cost is not).
 */
public record ProviderConfig(String id, ProviderProtocol protocol, URI baseUrl, String model, String apiKeyEnv,
                             String tokenizer, int contextWindow, Duration softTimeout, Duration hardTimeout,
                             Prices prices) {

    /** A provider whose prices are not known. */
    public ProviderConfig(String id, ProviderProtocol protocol, URI baseUrl, String model, String apiKeyEnv,
                          String tokenizer, int contextWindow, Duration softTimeout, Duration hardTimeout) {
        this(id, protocol, baseUrl, model, apiKeyEnv, tokenizer, contextWindow, softTimeout, hardTimeout, null);
    }
}
