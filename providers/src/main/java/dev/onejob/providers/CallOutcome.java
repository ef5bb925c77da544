package dev.onejob.providers;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.contract.FinishReason;
import java.time.Duration;

/**
 * What one provider call came to, as the attempt worker publishes it.
 *
 * <p>Produced by the provider clients (through {@link OutcomeClassifier} and the contract check) and by the
 * deadlines of a {@link ProviderCall}; consumed by the attempt worker. Owns nothing: every variant is an
 * immutable value. No variant ever holds an API key: messages are built from exception types, HTTP statuses
 * and provider error texts with the key cut out.
 */
public sealed interface CallOutcome {

    /** How long from sending the request to this outcome. */
    Duration latency();

    /**
     * The tokens the provider billed for this call, as its reply reported them; null when there was no reply that
     * said (no answer, an error status, or a reply without a usage block).
     */
    default Usage usage() {
        return null;
    }

    /**
     * The answer arrived, parsed, and is valid against the contract's output schema; {@code finishReason} is why the
     * provider stopped writing it (null when it said nothing onejob maps).
     */
    record Succeeded(JsonNode result, String providerRequestId, Duration latency, Usage usage,
                     FinishReason finishReason) implements CallOutcome {

        /** An answer whose provider did not say why it stopped. */
        public Succeeded(JsonNode result, String providerRequestId, Duration latency, Usage usage) {
            this(result, providerRequestId, latency, usage, null);
        }

        /** An answer whose usage is not known. */
        public Succeeded(JsonNode result, String providerRequestId, Duration latency) {
            this(result, providerRequestId, latency, null);
        }
    }

    /**
     * The provider definitely did not produce a usable result.
     *
     * @param code             {@code connection_refused}, {@code dns_failure}, {@code tls_failure},
     *                         {@code connect_timeout}, {@code connection_failed}, {@code missing_api_key},
     *                         {@code invalid_api_key}, {@code invalid_request} (all not sent), {@code http_<status>},
     *                         {@code contract_violation}, {@code answer_too_large} (sent)
     * @param message          what happened, in a sentence
     * @param retryable        whether the same request may succeed if tried again later
     * @param sent             whether the request may have reached the provider (false = safe to retry elsewhere)
     * @param httpStatus       the HTTP status, or {@code null} when there was no HTTP answer
     * @param providerRequestId the provider's request id, or {@code null}
     * @param offendingAnswer  for {@code contract_violation}: the answer text as received, kept for the audit
     * @param latency          from sending to this outcome
     * @param usage            what the provider billed for it (a {@code contract_violation} answer is billed), or null
     * @param retryAfter       when the provider asked to be tried again ({@link RetryAfter}), or null
     */
    record Failed(String code, String message, boolean retryable, boolean sent, Integer httpStatus,
                  String providerRequestId, String offendingAnswer, Duration latency, Usage usage,
                  Duration retryAfter)
            implements CallOutcome {

        /** A failure without a retry hint. */
        public Failed(String code, String message, boolean retryable, boolean sent, Integer httpStatus,
                      String providerRequestId, String offendingAnswer, Duration latency, Usage usage) {
            this(code, message, retryable, sent, httpStatus, providerRequestId, offendingAnswer, latency, usage, null);
        }

        /** A failure that billed nothing onejob knows of. */
        public Failed(String code, String message, boolean retryable, boolean sent, Integer httpStatus,
                      String providerRequestId, String offendingAnswer, Duration latency) {
            this(code, message, retryable, sent, httpStatus, providerRequestId, offendingAnswer, latency, null, null);
        }

        /** A failure before any byte of the request could have left this process. */
        static Failed notSent(String code, String message, boolean retryable, Duration latency) {
            return new Failed(code, message, retryable, false, null, null, null, latency);
        }
    }

    /** The request may have reached the provider and no usable answer says what happened to it. */
    record Unknown(String reason, Duration latency) implements CallOutcome {
    }
}
