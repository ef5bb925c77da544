package dev.onejob.core.certification;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.Providers;
import dev.onejob.core.config.RetryPolicy;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.contract.Passthrough;
import dev.onejob.core.ledger.Job;
import dev.onejob.core.ledger.ProviderGate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Lets automatic failover go only to providers certified for the job's contract as it is now.
 *
 * <p>Consumes a job's contract id and a provider id; produces yes/no ({@link #mayFailOverTo}) and, for no, the
 * reason ({@link #whyNot}), for the reconciler's record and the HTTP API. Reads {@link CertificationStore} on every
 * question, so a run recorded a moment ago counts at once. Owns nothing.
 *
 * <p>The rule: the newest certification run of the provider, with the model the providers file configures now, for
 * the job's contract at the version the contracts directory defines now, must have passed and have finished no
 * more than {@code maxAge} ago. The newest run decides, so a failed re-certification withdraws an earlier pass;
 * changing the contract's template or schemas (a new version) or the provider's model voids every earlier run.
 *
 * <p>Called inside the ledger's failover transaction, it takes a second pooled connection for its reads.
 */
public final class CertificationGate implements ProviderGate {
    public static final Duration DEFAULT_MAX_AGE = Duration.ofDays(7);

    private final CertificationStore store;
    private final Contracts contracts;
    private final Providers providers;
    private final Duration maxAge;
    private final Clock clock;

    public CertificationGate(CertificationStore store, Contracts contracts, Providers providers, Duration maxAge,
                             Clock clock) {
        if (maxAge.isNegative() || maxAge.isZero()) {
            throw new IllegalArgumentException("the maximum age of a certification must be positive, was " + maxAge);
        }
        this.store = Objects.requireNonNull(store, "store");
        this.contracts = Objects.requireNonNull(contracts, "contracts");
        this.providers = Objects.requireNonNull(providers, "providers");
        this.maxAge = maxAge;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** A gate with {@link #DEFAULT_MAX_AGE} on the system clock. */
    public CertificationGate(CertificationStore store, Contracts contracts, Providers providers) {
        this(store, contracts, providers, DEFAULT_MAX_AGE, Clock.systemUTC());
    }

    /** The providers file's retry policy of {@code provider} ({@code retry:}); none for a provider it lacks. */
    @Override
    public RetryPolicy retryPolicy(String provider) {
        return providers.find(provider).map(ProviderConfig::retry).orElse(RetryPolicy.NONE);
    }

    @Override
    public boolean mayFailOverTo(Job job, String provider) {
        return whyNot(job, provider).isEmpty();
    }

    /**
     * Why failover may not send {@code job} to {@code provider}; empty when it may. A passthrough call with tools
     * needs the provider certified for tool calling ({@link Passthrough#certifiedAs}).
     */
    public Optional<String> whyNot(Job job, String provider) {
        return whyNot(Passthrough.certifiedAs(job.contract(), job.request().path("variables")), provider);
    }

    /** Why failover may not send a job of {@code contractId} to {@code provider}; empty when it may. */
    public Optional<String> whyNot(String contractId, String provider) {
        Optional<ProviderConfig> config = providers.find(provider);
        if (config.isEmpty()) {
            return Optional.of(provider + " is not in the providers file");
        }
        Optional<Contract> contract = contracts.find(contractId);
        if (contract.isEmpty()) {
            return Optional.of("the contract " + contractId + " is not in the contracts directory");
        }
        String model = config.get().model();
        String version = contract.get().version();
        String label = Certification.label(contractId, version);
        Optional<Certification> newest = store.latest(provider, model, contractId, version);
        if (newest.isPresent()) {
            return verdictOf(newest.get(), label);
        }
        return Optional.of(store.latest(provider, contractId)
                .map(other -> whyOtherRunDoesNotCount(other, model, version, label))
                .orElse(provider + " has no passing certification for " + label));
    }

    /** The newest run for exactly this model and version: it must have passed and be young enough. */
    private Optional<String> verdictOf(Certification run, String label) {
        if (!run.passed()) {
            return Optional.of(run.provider() + " failed its latest certification for " + label + " (finished "
                    + run.finishedAt() + "; failed checks: " + String.join(", ", run.failedChecks()) + ")");
        }
        Instant oldestAllowed = clock.instant().minus(maxAge);
        if (run.finishedAt().isBefore(oldestAllowed)) {
            return Optional.of(run.provider() + "'s certification for " + label + " finished " + run.finishedAt()
                    + ", which is older than " + describe(maxAge) + "; certify it again");
        }
        return Optional.empty();
    }

    /** A run for another version or model exists: say which, since that is what to fix. */
    private static String whyOtherRunDoesNotCount(Certification other, String model, String version, String label) {
        String provider = other.provider();
        if (!other.contractVersion().equals(version)) {
            return provider + " has no passing certification for " + label + ": "
                    + (other.passed() ? "it was certified for" : "its latest run was for") + " an older version of "
                    + "the contract (" + other.contractLabel() + "), and changing the contract's template or schemas "
                    + "voids a certification";
        }
        return provider + " has no passing certification for " + label + " with its configured model " + model
                + ": its latest run was with model " + other.model();
    }

    /** "7 days", "12 hours", "30 minutes", else the ISO form. */
    static String describe(Duration duration) {
        long seconds = duration.getSeconds();
        if (duration.getNano() == 0 && seconds % 86_400 == 0) {
            return plural(seconds / 86_400, "day");
        }
        if (duration.getNano() == 0 && seconds % 3_600 == 0) {
            return plural(seconds / 3_600, "hour");
        }
        if (duration.getNano() == 0 && seconds % 60 == 0) {
            return plural(seconds / 60, "minute");
        }
        return duration.toString();
    }

    private static String plural(long count, String unit) {
        return count + " " + unit + (count == 1 ? "" : "s");
    }
}
