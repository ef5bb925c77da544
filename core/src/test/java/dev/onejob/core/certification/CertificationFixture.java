package dev.onejob.core.certification;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Job;
import dev.onejob.core.ledger.JobStatus;
import dev.onejob.testing.TestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

/**
 * Test fixture: the store on the run's database, the real contracts directory, and builders for runs and jobs.
 * Each test names its own providers ({@link #freshProvider()}), so tests sharing the database never see each
 * other's rows.
 */
final class CertificationFixture {
    static final Path CONTRACTS_DIR = Path.of("../config/contracts");
    static final String MODEL = "model-a";

    final Database database = Database.wrap(TestDatabase.shared().dataSource());
    final CertificationStore store = new CertificationStore(database);
    final Contracts contracts = Contracts.load(CONTRACTS_DIR);
    final Contract sentiment = contracts.find("sentiment").orElseThrow();

    static String freshProvider() {
        return "p-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static ProviderConfig provider(String id, String model) {
        return new ProviderConfig(id, ProviderProtocol.ANTHROPIC_MESSAGES, URI.create("http://127.0.0.1:9"), model,
                null, "anthropic", 200_000, Duration.ofSeconds(10), Duration.ofSeconds(120));
    }

    /** A run of {@code provider} for {@code contract} that finished at {@code finishedAt}, passing or not. */
    static Certification run(String provider, String model, Contract contract, boolean passed, Instant finishedAt) {
        Instant finished = finishedAt.truncatedTo(ChronoUnit.MICROS);
        List<CertificationCheck> checks = List.of(
                CertificationCheck.of("structure", passed, passed ? "9 answers valid" : "golden[0] repetition 3 of 3: "
                        + "Failed contract_violation", Json.object().put("calls", 9)),
                CertificationCheck.of("tokenizer", true, "fits", null));
        return new Certification(UUID.randomUUID(), provider, model, contract.id(), contract.version(), passed, checks,
                "report of " + provider, 3, finished.minusSeconds(2), finished, null);
    }

    /** A job of {@code contract} whose chain is primary, then {@code fallback}. */
    static Job job(String contract, String fallback) {
        Instant now = Instant.now();
        return new Job(UUID.randomUUID(), "owner-a", "key-" + UUID.randomUUID(), "0".repeat(64),
                Json.object().put("contract", contract), contract, "primary", List.of(fallback), JobStatus.RUNNING, 2,
                null, null, null, null, now, now, null);
    }

    /** The contracts directory with the sentiment contract's user template changed: a new contract version. */
    static Contracts withChangedTemplate(Path dir) {
        try {
            String yaml = Files.readString(CONTRACTS_DIR.resolve("sentiment.yaml"));
            String changed = yaml.replace("Text: {{text}}", "Customer text: {{text}}");
            if (changed.equals(yaml)) {
                throw new IllegalStateException("sentiment.yaml no longer has the line this fixture changes");
            }
            Files.writeString(dir.resolve("sentiment.yaml"), changed);
            return Contracts.load(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
