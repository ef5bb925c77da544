package dev.onejob.core.ledger;

/**
 * Decides whether automatic failover may send a job to a provider. Certification plugs in here; until a provider
 * is gated, every provider the job allows is eligible.
 */
@FunctionalInterface
public interface ProviderGate {
    ProviderGate ALLOW_ALL = (job, provider) -> true;

    boolean mayFailOverTo(Job job, String provider);
}
