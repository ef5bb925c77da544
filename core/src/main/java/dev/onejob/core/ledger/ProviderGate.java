package dev.onejob.core.ledger;

import java.util.Optional;

/**
 * Decides whether automatic failover may send a job to a provider (the certification gate, in production), and
 * says why not, so a job that runs out of providers records the reason.
 */
@FunctionalInterface
public interface ProviderGate {
    ProviderGate ALLOW_ALL = (job, provider) -> true;

    boolean mayFailOverTo(Job job, String provider);

    default Optional<String> whyNot(Job job, String provider) {
        return mayFailOverTo(job, provider) ? Optional.empty() : Optional.of(provider + " is not eligible for failover");
    }
}
