package dev.onejob.core.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.contract.FinishReason;
import java.util.UUID;

/**
 * A provider's answer for one attempt, as a completion reports it: the job it claims, the provider it claims to have
 * run on (null checks none), the start it claims to answer ({@code startToken}, the token the attempt was started
 * with; null checks none) and the result. The ledger checks every claim inside the compare-and-swap's statement.
 */
public record AttemptAnswer(UUID jobId, UUID attemptId, String provider, JsonNode result, String providerRequestId,
                            UUID startToken, FinishReason finishReason) {
    /** An answer whose provider did not say why it stopped. */
    public AttemptAnswer(UUID jobId, UUID attemptId, String provider, JsonNode result, String providerRequestId,
                         UUID startToken) {
        this(jobId, attemptId, provider, result, providerRequestId, startToken, null);
    }

    /** An answer that claims no particular start. */
    public AttemptAnswer(UUID jobId, UUID attemptId, String provider, JsonNode result, String providerRequestId) {
        this(jobId, attemptId, provider, result, providerRequestId, null);
    }
}
