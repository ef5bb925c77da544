package dev.onejob.core.ledger;

import dev.onejob.core.config.RetryPolicy;
import java.util.Optional;

/**
 * Decides where a job may go after a failed attempt: whether automatic failover may send it to a provider (the
 * certification gate, in production), and why not, so a job that runs out of providers records the reason; and how
 * a definite refusal is retried on the provider that refused ({@link #retryPolicy}).
 */
@FunctionalInterface
public interface ProviderGate {
    ProviderGate ALLOW_ALL = (job, provider) -> true;

    boolean mayFailOverTo(Job job, String provider);

    /** How a provider's definite refusals are retried on it; {@link RetryPolicy#NONE} unless a gate says more. */
    default RetryPolicy retryPolicy(String provider) {
        return RetryPolicy.NONE;
    }

    default Optional<String> whyNot(Job job, String provider) {
        return mayFailOverTo(job, provider) ? Optional.empty() : Optional.of(provider + " is not eligible for failover");
    }
}
