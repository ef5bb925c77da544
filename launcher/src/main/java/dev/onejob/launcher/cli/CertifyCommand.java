package dev.onejob.launcher.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Env;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.json.Json;
import dev.onejob.providers.ProviderClients;
import dev.onejob.providers.certify.CertificationReport;
import dev.onejob.providers.certify.CertificationRunner;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code onejob certify} (also {@code providers certify}): runs a contract's golden inputs through a provider with
 * the worker's own adapters, prints the report and stores the result, which the failover gate then reads. Talks to
 * the providers themselves (their API keys from the environment) and writes to the database
 * ({@code DATABASE_URL}). Exit 0 when every certification passed, 1 when any failed.
 */
@Command(name = "certify", mixinStandardHelpOptions = true,
        description = {"Certifies a provider for a contract (or every pair with --all) and stores the result.",
            "Calls the providers through the worker's adapters; writes to the database (DATABASE_URL)."})
public final class CertifyCommand implements Callable<Integer> {
    private final CliContext context;

    @Option(names = "--provider", paramLabel = "ID", description = "The provider to certify.")
    String provider;

    @Option(names = "--contract", paramLabel = "ID", description = "The contract to certify it for.")
    String contract;

    @Option(names = "--all", description = "Every provider of the providers file for every contract.")
    boolean all;

    @Option(names = "--providers-file", paramLabel = "FILE",
            description = "The providers file (default: $PROVIDERS_FILE, else config/providers.yaml).")
    Path providersFile;

    @Option(names = "--contracts-dir", paramLabel = "DIR",
            description = "The contracts directory (default: $CONTRACTS_DIR, else config/contracts).")
    Path contractsDir;

    @Option(names = "--json", description = "Print the stored results as JSON.")
    boolean json;

    CertifyCommand(CliContext context) {
        this.context = context;
    }

    private static ObjectNode toJson(CertificationReport report) {
        var node = Json.object();
        node.put("provider", report.provider());
        node.put("model", report.model());
        node.put("contract", report.contractId());
        node.put("contract_version", report.contractVersion());
        node.put("passed", report.passed());
        var checks = node.putArray("checks");
        report.checks().forEach(check -> checks.add(check.toJson()));
        return node;
    }

    @Override
    public Integer call() {
        if (!all && (provider == null || contract == null)) {
            throw CliFailure.usage("give --provider and --contract, or --all");
        }
        Providers providers;
        Contracts contracts;
        try {
            providers = Providers.load(providersFile != null ? providersFile
                    : Path.of(context.env(Env.PROVIDERS_FILE, "config/providers.yaml")), context.env());
            contracts = Contracts.load(contractsDir != null ? contractsDir
                    : Path.of(context.env(Env.CONTRACTS_DIR, "config/contracts")));
        } catch (ConfigException e) {
            throw CliFailure.usage(e.getMessage());
        }
        DatabaseConfig config = DatabaseConfig.fromEnv(context.runningEnv());
        try (Database database = Database.connect(config, "onejob-certify");
             ProviderClients clients = ProviderClients.create(ProviderClients.defaultHttpClient(), context.env())) {
            List<CertificationReport> reports = CertificationRunner.over(clients,
                    new CertificationStore(database), providers, contracts)
                    .run(Optional.ofNullable(all ? null : provider), Optional.ofNullable(all ? null : contract));
            for (CertificationReport report : reports) {
                context.out().println(json ? Json.write(toJson(report)) : report.toText());
            }
            return reports.stream().allMatch(CertificationReport::passed) ? ExitCode.OK : ExitCode.REFUSED;
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage(e.getMessage());
        } catch (DatabaseException e) {
            throw CliFailure.unreachable("cannot store certifications at " + config.jdbcUrl() + ": " + e.getMessage());
        }
    }
}
