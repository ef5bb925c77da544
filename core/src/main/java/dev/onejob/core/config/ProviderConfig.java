package dev.onejob.core.config;

import java.net.URI;
import java.time.Duration;

/**
 * One provider from the providers file. {@code apiKeyEnv} names the environment variable holding the key; the key
 * itself is read only where the call is made and never kept in config, logs or events.
 */
public record ProviderConfig(String id, ProviderProtocol protocol, URI baseUrl, String model, String apiKeyEnv,
                             String tokenizer, int contextWindow, Duration softTimeout, Duration hardTimeout) {
}
