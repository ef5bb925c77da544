package dev.onejob.providers.certify;

import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.providers.ProviderClients;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Certifies configured providers for configured contracts and records every run: what a worker runs for a
 * certification command, and what {@code onejob certify} and the local stacks call in their own process.
 *
 * <p>Consumes provider and contract ids (or none, meaning all); produces the {@link CertificationReport}s, in
 * provider order, then contract order, each already recorded in {@link CertificationStore} (a failed run is
 * recorded too: it withdraws an earlier pass). Pairs run one after another. Holds the certifier, the store and the
 * loaded config; owns none of them.
 */
public final class CertificationRunner {
    private final Certifier certifier;
    private final CertificationStore store;
    private final Providers providers;
    private final Contracts contracts;
    private final int repetitions;

    public CertificationRunner(Certifier certifier, CertificationStore store, Providers providers, Contracts contracts,
                               int repetitions) {
        if (repetitions < 1) {
            throw new IllegalArgumentException("repetitions must be at least 1, was " + repetitions);
        }
        this.certifier = certifier;
        this.store = store;
        this.providers = providers;
        this.contracts = contracts;
        this.repetitions = repetitions;
    }

    /**
     * The runner every caller uses (the worker's certification commands, the CLI, the local stacks): the
     * worker's own adapters over {@code clients}, each golden input repeated {@link Certifier#DEFAULT_REPETITIONS}
     * times, every run recorded in {@code store}.
     */
    public static CertificationRunner over(ProviderClients clients, CertificationStore store, Providers providers,
                                           Contracts contracts) {
        return new CertificationRunner(new Certifier(clients), store, providers, contracts,
                Certifier.DEFAULT_REPETITIONS);
    }

    /**
     * Certifies {@code provider} (or every provider when empty) for {@code contract} (or every contract when empty).
     *
     * @throws IllegalArgumentException naming the known ids when a given provider or contract is not configured
     *                                  (nothing is certified then)
     */
    public List<CertificationReport> run(Optional<String> provider, Optional<String> contract) {
        return run(null, provider, contract);
    }

    /**
     * As {@link #run(Optional, Optional)}, recording every run as one of the certification request {@code requestId}
     * made (null: none): what a worker does with a certification command.
     */
    public List<CertificationReport> run(UUID requestId, Optional<String> provider, Optional<String> contract) {
        List<ProviderConfig> chosenProviders = provider.map(id -> List.of(providerNamed(id)))
                .orElseGet(() -> List.copyOf(providers.all()));
        List<Contract> chosenContracts = contract.map(id -> List.of(contractNamed(id)))
                .orElseGet(() -> List.copyOf(contracts.all()));
        List<CertificationReport> reports = new ArrayList<>();
        for (ProviderConfig p : chosenProviders) {
            for (Contract c : chosenContracts) {
                reports.add(certifyAndRecord(p, c, requestId));
            }
        }
        return reports;
    }

    /** Certifies one pair and records the run. */
    public CertificationReport run(String provider, String contract) {
        return certifyAndRecord(providerNamed(provider), contractNamed(contract), null);
    }

    private CertificationReport certifyAndRecord(ProviderConfig provider, Contract contract, UUID requestId) {
        CertificationReport report = certifier.certify(provider, contract, repetitions);
        if (!store.record(report.toCertification(), requestId)) {
            throw new IllegalStateException("certification run " + report.id() + " was already recorded");
        }
        return report;
    }

    private ProviderConfig providerNamed(String id) {
        return providers.find(id).orElseThrow(() -> new IllegalArgumentException("no provider '" + id
                + "' in the providers file; known: " + ids(providers.all().stream().map(ProviderConfig::id).toList())));
    }

    private Contract contractNamed(String id) {
        return contracts.find(id).orElseThrow(() -> new IllegalArgumentException("no contract '" + id
                + "' in the contracts directory; known: " + ids(contracts.all().stream().map(Contract::id).toList())));
    }

    private static String ids(Collection<String> ids) {
        return ids.stream().collect(Collectors.joining(", "));
    }
}
