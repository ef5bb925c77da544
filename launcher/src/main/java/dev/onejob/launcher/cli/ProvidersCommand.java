package dev.onejob.launcher.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Env;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.json.Json;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code providers list}: the providers file as the services read it, and whether each provider is certified for
 * each contract (automatic failover only goes to certified providers). Consumes the providers file, the contracts
 * directory and, for certifications, the database (read-only); produces one row per provider and one per
 * (provider, contract). {@code providers certify} is {@link CertifyCommand}.
 */
@Command(name = "providers", mixinStandardHelpOptions = true, subcommands = CertifyCommand.class,
        description = "The configured providers and their certifications.")
public record ProvidersCommand(CliContext context) {
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {"Lists the providers of the providers file (id, protocol, model, base_url, timeouts) and,"
                    + " per contract of the contracts directory, whether the provider is certified for it.",
                "Reads the providers file and the contracts directory; certifications come from the database,"
                        + " read-only (DATABASE_URL, DATABASE_USER, DATABASE_PASSWORD; default: the running ./onejob"
                        + " dev's), unless --no-certifications."})
    int list(@Option(names = "--providers-file", paramLabel = "FILE",
                     description = "The providers file (default: $PROVIDERS_FILE, else config/providers.yaml).")
             Path providersFile,
             @Option(names = "--contracts-dir", paramLabel = "DIR",
                     description = "The contracts directory (default: $CONTRACTS_DIR, else config/contracts).")
             Path contractsDir,
             @Option(names = "--no-certifications", description = "Do not read certifications (no database needed).")
             boolean noCertifications,
             @Option(names = "--json", description = "Print a JSON array, one object per provider.") boolean json) {
        Path file = providersFile != null ? providersFile
                : Path.of(context.env(Env.PROVIDERS_FILE, "config/providers.yaml"));
        Providers providers = load(() -> Providers.load(file, context.env()));
        Map<String, List<ObjectNode>> certifications = Map.of();
        if (!noCertifications) {
            Path dir = contractsDir != null ? contractsDir : Path.of(context.env(Env.CONTRACTS_DIR, "config/contracts"));
            Contracts contracts = load(() -> Contracts.load(dir));
            certifications = ProviderCertifications.read(ReadOnlyDatabase.fromEnv(context), providers, contracts);
        }
        if (json) {
            ArrayNode list = Json.MAPPER.createArrayNode();
            for (ProviderConfig provider : providers.all()) {
                ObjectNode node = describe(provider);
                if (!noCertifications) {
                    node.putArray("certifications").addAll(certifications.getOrDefault(provider.id(), List.of()));
                }
                list.add(node);
            }
            context.out().println(Json.write(list));
        } else {
            printText(providers, certifications, noCertifications);
        }
        return ExitCode.OK;
    }

    private void printText(Providers providers, Map<String, List<ObjectNode>> certifications, boolean skipped) {
        Table table = new Table("id", "protocol", "model", "base_url", "soft_timeout", "hard_timeout", "api key from");
        providers.all().forEach(p -> table.row(p.id(), p.protocol().wireName(), p.model(), p.baseUrl(),
                text(p.softTimeout()), text(p.hardTimeout()), p.apiKeyEnv() == null ? "-" : "$" + p.apiKeyEnv()));
        context.out().print(table.render());
        if (skipped) {
            return;
        }
        context.out().println();
        context.out().println("certification (automatic failover goes only to a provider certified for the job's"
                + " contract):");
        Table runs = new Table("provider", "contract", "status", "why / latest run").maxWidth(3, 80);
        certifications.forEach((provider, list) -> list.forEach(c -> {
            boolean certified = c.path("certified").asBoolean();
            runs.row(provider, c.path("contract").asText(), certified ? "certified" : "not certified",
                    certified ? ProviderCertifications.latestRunText(c) : c.path("reason").asText());
        }));
        context.out().print(runs.isEmpty() ? "  no contracts in the contracts directory\n" : runs.render());
    }

    private static ObjectNode describe(ProviderConfig provider) {
        ObjectNode node = Json.object();
        node.put("id", provider.id());
        node.put("protocol", provider.protocol().wireName());
        node.put("model", provider.model());
        node.put("base_url", provider.baseUrl().toString());
        node.put("api_key_env", provider.apiKeyEnv());
        node.put("context_window", provider.contextWindow());
        node.put("soft_timeout", text(provider.softTimeout()));
        node.put("hard_timeout", text(provider.hardTimeout()));
        return node;
    }

    /** A duration as the providers file writes it: 500ms, 10s, 120s, 1h. */
    static String text(Duration duration) {
        long millis = duration.toMillis();
        if (millis % 3_600_000 == 0 && millis > 0) {
            return millis / 3_600_000 + "h";
        }
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    private static <T> T load(Supplier<T> loader) {
        try {
            return loader.get();
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage(e.getMessage());
        }
    }
}
