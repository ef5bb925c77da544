package dev.onejob.providers.certify;

import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.contract.Contract;
import dev.onejob.providers.ProviderClients;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

/**
 * Certifies a provider for a contract: runs the contract's golden inputs through the provider with the worker's own
 * adapters (a full round trip over real HTTP) and judges what came back.
 *
 * <p>Consumes a provider, a contract and a repetition count; produces a {@link CertificationReport} with five checks,
 * in this order: {@link StructureCheck structure} (every answer valid and as the golden {@code expect} says, in every
 * repetition), {@link RenderingCheck rendering} (every golden input fills every slot), {@link TokenizerCheck
 * tokenizer} (every prompt plus {@code max_tokens} fits the context window, by the provider's own tokenizer; for
 * openai-chat the tokens decode back exactly), {@link RoundTripCheck round_trip} (non-ASCII input text survives the
 * provider) and {@link OperationalCheck operational} (answers within the soft timeout; a closed port classified as
 * not sent). Blocking, sequential calls: run it off any Kafka poll thread. Costs, per run, golden inputs x
 * repetitions provider calls, plus one {@code count_tokens} call per golden input for anthropic-messages.
 *
 * <p>Holds the provider adapters (lent, not closed here) and a clock for the run's timestamps. Interrupting the
 * calling thread ends the run with a {@link java.util.concurrent.CancellationException}.
 */
public final class Certifier {
    public static final int DEFAULT_REPETITIONS = 3;

    private final ProviderClients clients;
    private final TokenizerCheck tokenizer;
    private final Clock clock;

    public Certifier(ProviderClients clients, Clock clock) {
        this.clients = clients;
        this.tokenizer = new TokenizerCheck(clients.tokenCounter());
        this.clock = clock;
    }

    public Certifier(ProviderClients clients) {
        this(clients, Clock.systemUTC());
    }

    /** {@link #certify(ProviderConfig, Contract, int)} with {@link #DEFAULT_REPETITIONS}. */
    public CertificationReport certify(ProviderConfig provider, Contract contract) {
        return certify(provider, contract, DEFAULT_REPETITIONS);
    }

    /** Runs every check of {@code provider} for {@code contract}, each golden input sent {@code repetitions} times. */
    public CertificationReport certify(ProviderConfig provider, Contract contract, int repetitions) {
        if (repetitions < 1) {
            throw new IllegalArgumentException("repetitions must be at least 1, was " + repetitions);
        }
        Instant started = now();
        CertificationCheck rendering = RenderingCheck.check(contract);
        CertificationCheck tokens = tokenizer.check(provider, contract);
        List<GoldenCall> calls = GoldenCalls.run(clients, provider, contract, repetitions);
        CertificationCheck structure = StructureCheck.check(contract, calls);
        CertificationCheck roundTrip = RoundTripCheck.check(contract, calls);
        CertificationCheck operational = OperationalCheck.check(clients, provider, contract, calls);
        return new CertificationReport(UUID.randomUUID(), provider.id(), provider.model(), contract.id(),
                contract.version(), repetitions, contract.golden().size(),
                List.of(structure, rendering, tokens, roundTrip, operational), started, now());
    }

    /** PostgreSQL keeps microseconds: a report read back from the store then equals the one made here. */
    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
