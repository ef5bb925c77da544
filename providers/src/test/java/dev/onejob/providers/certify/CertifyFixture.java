package dev.onejob.providers.certify;

import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.simulator.ProviderSimulator;
import dev.onejob.simulator.SimulatorConfig;
import dev.onejob.testing.TestDatabase;
import dev.onejob.providers.ProviderClients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * Test fixture: one provider simulator expecting an API key, the worker's adapters holding that key, a certifier on
 * them, and the certification store on the run's database. Provider ids are fresh per fixture, so tests sharing the
 * database never see each other's rows. Owns the simulator and the adapters' timer; {@link #close()} stops both.
 */
final class CertifyFixture implements AutoCloseable {
    static final String API_KEY = "sk-certify-test-456";
    static final String KEY_ENV = "CERTIFY_SIM_API_KEY";
    static final Path CONTRACTS_DIR = Path.of("../config/contracts");
    static final Contracts CONTRACTS = Contracts.load(CONTRACTS_DIR);
    static final Contract SENTIMENT = CONTRACTS.find("sentiment").orElseThrow();
    static final Duration SOFT = Duration.ofSeconds(5);
    static final Duration HARD = Duration.ofSeconds(10);
    static final int CONTEXT_WINDOW = 64_000;

    final ProviderSimulator sim;
    final ProviderClients clients = ProviderClients.create(ProviderClients.defaultHttpClient(),
            Map.of(KEY_ENV, API_KEY));
    final Certifier certifier = new Certifier(clients);
    private final String idPrefix = "cert-" + UUID.randomUUID().toString().substring(0, 8);

    CertifyFixture() {
        try {
            sim = ProviderSimulator.start(SimulatorConfig.defaults().withName("certify-test").withApiKey(API_KEY));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static CertificationStore store() {
        return new CertificationStore(Database.wrap(TestDatabase.shared().dataSource()));
    }

    /** A provider of {@code protocol} at the simulator with generous timeouts and a 64k window. */
    ProviderConfig provider(ProviderProtocol protocol) {
        return provider(protocol, CONTEXT_WINDOW, SOFT, HARD);
    }

    ProviderConfig provider(ProviderProtocol protocol, int contextWindow, Duration soft, Duration hard) {
        String tokenizer = protocol == ProviderProtocol.OPENAI_CHAT ? "o200k_base" : "anthropic";
        return new ProviderConfig(idPrefix + "-" + protocol.wireName(), protocol, sim.baseUri(), "test-model",
                KEY_ENV, tokenizer, contextWindow, soft, hard);
    }

    @Override
    public void close() {
        clients.close();
        sim.close();
    }
}
