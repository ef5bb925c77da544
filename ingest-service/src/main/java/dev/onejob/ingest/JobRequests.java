package dev.onejob.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.billing.JobCost;
import dev.onejob.core.billing.OwnerLimits;
import dev.onejob.core.config.OwnerPolicies;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.contract.Passthrough;
import dev.onejob.core.json.JsonNumbers;
import dev.onejob.core.json.StorableText;
import dev.onejob.core.ledger.NewJob;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Turns a job request, as sent over HTTP or on {@code job-requests}, into a {@link NewJob}, or into the list of
 * reasons it cannot be one: unknown contract or provider, missing variables, variables that break the contract's
 * variable schema, unknown fields. The same rules for both channels.
 */
public final class JobRequests {
    private static final Set<String> FIELDS = Set.of("contract", "variables", "target", "fallbacks");

    private final Contracts contracts;
    private final Providers providers;
    private final OwnerPolicies policies;
    private final Clock clock;
    private final ProviderCooldowns cooldowns;
    private final OwnerRateLimit rateLimit;

    /** Limiting nobody. */
    public JobRequests(Contracts contracts, Providers providers) {
        this(contracts, providers, OwnerPolicies.NONE, Clock.systemUTC());
    }

    /** A limited owner's jobs carry their limits, the current period and what they reserve ({@link JobCost}). */
    public JobRequests(Contracts contracts, Providers providers, OwnerPolicies policies, Clock clock) {
        this(contracts, providers, policies, clock, ProviderCooldowns.NONE);
    }

    /** And a job whose target cools down starts on a certified fallback ({@link ProviderCooldowns}). */
    public JobRequests(Contracts contracts, Providers providers, OwnerPolicies policies, Clock clock,
                       ProviderCooldowns cooldowns) {
        this(contracts, providers, policies, clock, cooldowns, OwnerRateLimit.OFF);
    }

    /** And each owner's share of submissions, the same bucket for both channels ({@link OwnerRateLimit}). */
    public JobRequests(Contracts contracts, Providers providers, OwnerPolicies policies, Clock clock,
                       ProviderCooldowns cooldowns, OwnerRateLimit rateLimit) {
        this.rateLimit = rateLimit;
        this.contracts = contracts;
        this.providers = providers;
        this.policies = policies;
        this.clock = clock;
        this.cooldowns = cooldowns;
    }

    /** Each owner's share of submissions, on HTTP and Kafka alike. */
    public OwnerRateLimit rateLimit() {
        return rateLimit;
    }

    /** Which providers cool down now, deciding where new jobs start. */
    public ProviderCooldowns cooldowns() {
        return cooldowns;
    }

    /** Either a job to submit or the problems, never both. */
    public record Validated(NewJob job, List<String> problems) {
        public boolean isValid() {
            return job != null;
        }
    }

    public Validated validate(String ownerId, String idempotencyKey, JsonNode request) {
        List<String> problems = new ArrayList<>();
        if (request == null || !request.isObject()) {
            return new Validated(null, List.of("the request must be a JSON object"));
        }
        var unstorable = StorableText.problem(request);
        if (unstorable.isPresent()) {
            return new Validated(null, List.of("the request " + unstorable.get()));
        }
        var outOfRange = JsonNumbers.problem(request);
        if (outOfRange.isPresent()) {
            return new Validated(null, List.of("the request's " + outOfRange.get()));
        }
        request.fieldNames().forEachRemaining(name -> {
            if (!FIELDS.contains(name)) {
                String shown = name.length() > 64 ? name.substring(0, 64) + "..." : name;
                problems.add("unknown field '" + shown + "' (allowed: contract, variables, target, fallbacks)");
            }
        });
        String contractId = text(request, "contract", problems);
        String target = text(request, "target", problems);
        List<String> fallbacks = fallbacks(request.get("fallbacks"), problems);
        Contract contract = null;
        if (contractId != null) {
            contract = contracts.find(contractId).orElse(null);
            if (contract == null) {
                problems.add("unknown contract '" + contractId + "'");
            } else if (contractId.equals(Passthrough.TOOLS_ID)) {
                problems.add("contract '" + contractId + "' is certified against, never submitted: a call with tools "
                        + "is a job of the '" + Passthrough.ID + "' contract");
                contract = null;
            }
        }
        JsonNode variables = request.get("variables");
        if (variables == null) {
            problems.add("'variables' is required");
        } else if (contract != null) {
            contract.variableProblems(variables).forEach(p -> problems.add("variables: " + p));
        }
        if (target != null && providers.find(target).isEmpty()) {
            problems.add("unknown target provider '" + target + "'");
        }
        for (String fallback : fallbacks) {
            if (providers.find(fallback).isEmpty()) {
                problems.add("unknown fallback provider '" + fallback + "'");
            } else if (fallback.equals(target)) {
                problems.add("fallback '" + fallback + "' is also the target");
            }
        }
        if (problems.isEmpty() && contract.passthrough()) {
            protocolProblems(variables, target, fallbacks, problems);
        }
        if (!problems.isEmpty()) {
            return new Validated(null, List.copyOf(problems));
        }
        return new Validated(new NewJob(ownerId, idempotencyKey, request, contractId, target, fallbacks,
                budget(ownerId, contract, variables, target, fallbacks),
                cooldowns.firstProvider(Passthrough.certifiedAs(contractId, variables), target, fallbacks)),
                List.of());
    }

    /** A passthrough call with a parameter only one protocol takes may go to providers of that protocol only. */
    private void protocolProblems(JsonNode variables, String target, List<String> fallbacks, List<String> problems) {
        Passthrough.onlyFor(variables).ifPresent(protocol -> Stream.concat(Stream.of(target), fallbacks.stream())
                .filter(id -> providers.find(id).orElseThrow().protocol() != protocol)
                .forEach(id -> problems.add("variables " + Passthrough.protocolOnly(variables) + " only "
                        + protocol.wireName() + " providers take; '" + id + "' speaks another protocol")));
    }

    private NewJob.Budget budget(String ownerId, Contract contract, JsonNode variables, String target,
                                 List<String> fallbacks) {
        OwnerLimits limits = policies.limitsFor(ownerId);
        if (!limits.limitsAnything()) {
            return null;
        }
        List<ProviderConfig> route = new ArrayList<>();
        route.add(providers.find(target).orElseThrow());
        fallbacks.forEach(f -> route.add(providers.find(f).orElseThrow()));
        return new NewJob.Budget(limits, limits.period().start(LocalDate.now(clock.withZone(ZoneOffset.UTC))),
                JobCost.bound(contract, variables, route));
    }

    private static String text(JsonNode request, String field, List<String> problems) {
        JsonNode value = request.get(field);
        if (value == null || value.isNull()) {
            problems.add("'" + field + "' is required");
            return null;
        }
        if (!value.isTextual() || value.asText().isEmpty()) {
            problems.add("'" + field + "' must be a non-empty string");
            return null;
        }
        return value.asText();
    }

    private static List<String> fallbacks(JsonNode value, List<String> problems) {
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            problems.add("'fallbacks' must be an array of provider ids");
            return List.of();
        }
        Set<String> seen = new LinkedHashSet<>();
        for (JsonNode item : value) {
            if (!item.isTextual()) {
                problems.add("'fallbacks' must contain only provider ids (strings)");
                return List.of();
            }
            if (!seen.add(item.asText())) {
                problems.add("fallback '" + item.asText() + "' is listed twice");
            }
        }
        return List.copyOf(seen);
    }
}
