package dev.onejob.core.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.billing.OwnerLimits;
import dev.onejob.core.json.CanonicalJson;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Objects;

/**
 * A validated request to create a job: who asks (from the credentials, never the body), under which idempotency
 * key, and the request as sent, whose canonical form is fingerprinted. {@code budget} is null when the owner is not
 * limited; otherwise the owner's limits, the first day of the current spend period and what the job reserves.
 * {@code firstProvider} is where its first attempt goes: the target, or a fallback of its chain while the target cools
 * down ({@code Cooldown}); it is not part of the request, so not of its fingerprint.
 */
public record NewJob(String ownerId, String idempotencyKey, JsonNode request, String contract, String targetProvider,
                     List<String> fallbackProviders, Budget budget, String firstProvider) {

    /** What a limited owner's job is checked against when it is created. */
    public record Budget(OwnerLimits limits, LocalDate periodStart, BigDecimal reservationUsd) {
        public Budget {
            Objects.requireNonNull(limits, "limits");
            Objects.requireNonNull(periodStart, "periodStart");
            Objects.requireNonNull(reservationUsd, "reservationUsd");
        }
    }

    /** A job whose first attempt goes to its target. */
    public NewJob(String ownerId, String idempotencyKey, JsonNode request, String contract, String targetProvider,
                  List<String> fallbackProviders, Budget budget) {
        this(ownerId, idempotencyKey, request, contract, targetProvider, fallbackProviders, budget, targetProvider);
    }

    /** A job whose owner is not limited. */
    public NewJob(String ownerId, String idempotencyKey, JsonNode request, String contract, String targetProvider,
                  List<String> fallbackProviders) {
        this(ownerId, idempotencyKey, request, contract, targetProvider, fallbackProviders, null);
    }

    public NewJob {
        Objects.requireNonNull(ownerId, "ownerId");
        IdempotencyKey.require(idempotencyKey);
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(contract, "contract");
        Objects.requireNonNull(targetProvider, "targetProvider");
        fallbackProviders = List.copyOf(fallbackProviders);
        if (!firstProvider.equals(targetProvider) && !fallbackProviders.contains(firstProvider)) {
            throw new IllegalArgumentException("the first provider " + firstProvider + " is not in the job's chain");
        }
    }

    /** The same job, its first attempt on {@code provider} (the target or one of its fallbacks). */
    public NewJob startingOn(String provider) {
        return new NewJob(ownerId, idempotencyKey, request, contract, targetProvider, fallbackProviders, budget,
                provider);
    }

    public String fingerprint() {
        return CanonicalJson.fingerprint(request);
    }
}
