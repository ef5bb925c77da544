package dev.onejob.core.ledger;

import dev.onejob.core.billing.Usage;
import java.math.BigDecimal;
import java.util.Objects;
import java.util.UUID;

/**
 * What the provider billed for one attempt's call, as its completion reports it: the attempt and job it claims, the
 * provider and model it ran on, the start it answers ({@code startToken}; null checks none), the tokens, and their
 * cost ({@code null} when the provider has no prices). The ledger checks the claims against the attempt before it
 * records anything.
 */
public record BilledCall(UUID attemptId, UUID jobId, String provider, String model, Usage usage, BigDecimal costUsd,
                         UUID startToken) {
    /** A call that claims no particular start of its attempt. */
    public BilledCall(UUID attemptId, UUID jobId, String provider, String model, Usage usage, BigDecimal costUsd) {
        this(attemptId, jobId, provider, model, usage, costUsd, null);
    }

    public BilledCall {
        Objects.requireNonNull(attemptId, "attemptId");
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(usage, "usage");
    }
}
