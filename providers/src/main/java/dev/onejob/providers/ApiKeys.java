package dev.onejob.providers;

import dev.onejob.core.config.ProviderConfig;
import java.util.Map;

/**
 * Reads a provider's API key from the environment variable its config names, and cuts it out of any text
 * that leaves the adapter.
 *
 * <p>Consumes the injected environment map; produces the key (only ever placed in a request header) or a
 * problem that names the variable, never its value. Owns nothing.
 */
final class ApiKeys {

    /** Why no usable key could be read; the message names the variable, never the value. */
    static final class Problem extends Exception {
        private final String code;

        Problem(String code, String message) {
            super(message, null, false, false);
            this.code = code;
        }

        String code() {
            return code;
        }
    }

    private ApiKeys() {
    }

    /** The key, or {@code null} when the provider needs none ({@code api_key_env} not set). */
    static String lookup(ProviderConfig provider, Map<String, String> env) throws Problem {
        String variable = provider.apiKeyEnv();
        if (variable == null || variable.isBlank()) {
            return null;
        }
        String value = env.get(variable);
        if (value == null || value.isBlank()) {
            throw new Problem("missing_api_key", "the environment variable " + variable + " (api_key_env of provider "
                    + provider.id() + ") is not set or empty");
        }
        String key = value.strip();
        // A header value with control characters would be refused by the HTTP client in a message quoting it.
        if (!key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new Problem("invalid_api_key", "the environment variable " + variable + " (api_key_env of "
                    + "provider " + provider.id() + ") holds characters an HTTP header cannot carry");
        }
        return key;
    }

    /** {@code text} with every occurrence of {@code key} replaced by {@code ***}. */
    static String redact(String text, String key) {
        return text == null || key == null ? text : text.replace(key, "***");
    }

    /** {@code outcome} with the key cut out of its texts; a provider echoing the key must not spread it. */
    static CallOutcome redact(CallOutcome outcome, String key) {
        if (key == null) {
            return outcome;
        }
        if (outcome instanceof CallOutcome.Failed f) {
            return new CallOutcome.Failed(f.code(), redact(f.message(), key), f.retryable(), f.sent(), f.httpStatus(),
                    redact(f.providerRequestId(), key), redact(f.offendingAnswer(), key), f.latency(),
                    f.usage(), f.retryAfter());
        }
        if (outcome instanceof CallOutcome.Unknown u) {
            return new CallOutcome.Unknown(redact(u.reason(), key), u.latency());
        }
        return outcome;
    }
}
