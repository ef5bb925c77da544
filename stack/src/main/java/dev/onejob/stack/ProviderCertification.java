package dev.onejob.stack;

import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.infra.RunFiles;
import dev.onejob.infra.ScratchDatabase;
import dev.onejob.providers.ProviderClients;
import dev.onejob.providers.certify.CertificationReport;
import dev.onejob.providers.certify.CertificationRunner;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Certifies every provider of a run's providers file for every contract, in this process, before the services
 * start: failover only goes to a certified provider. Consumes the run's files and the providers' variables;
 * produces the certifications in the run's database and one line per (provider, contract).
 */
public final class ProviderCertification {
    private ProviderCertification() {
    }

    /** Fails naming the provider when one does not pass: its simulator answered wrongly with no fault planned. */
    public static void certifyAll(ScratchDatabase database, RunFiles files, Map<String, String> providerEnv,
                           Consumer<String> say) {
        try (Database pool = Database.connect(new DatabaseConfig(database.jdbcUrl(), database.user(),
                database.password(), 2), "cluster-certify");
             ProviderClients clients = ProviderClients.create(ProviderClients.defaultHttpClient(), providerEnv)) {
            List<CertificationReport> reports = CertificationRunner.over(clients, new CertificationStore(pool),
                    Providers.load(files.providersFile(), providerEnv), Contracts.load(files.contractsDir()))
                    .run(Optional.empty(), Optional.empty());
            for (CertificationReport report : reports) {
                say.accept("certification: " + report.provider() + " for " + report.contractLabel() + ": "
                        + (report.passed() ? "passed" : "FAILED"));
                if (!report.passed()) {
                    throw new IllegalStateException("the simulator " + report.provider() + " failed certification: "
                            + report.checks());
                }
            }
        }
    }
}
