package dev.onejob.providers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.json.Json;
import dev.onejob.simulator.Behaviour;
import dev.onejob.simulator.ProviderSimulator;
import dev.onejob.simulator.SimRequest;
import dev.onejob.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Test fixture: one provider simulator expecting {@link #API_KEY}, provider adapters whose environment holds that
 * key under {@link #KEY_ENV}, the real sentiment contract, and the requests the simulator answered.
 *
 * <p>Consumes nothing; produces provider configs pointing at the simulator and calls with per-attempt behaviours.
 * Owns the simulator, the adapters' timer and the HTTP client; {@link #close()} stops them.
 */
final class SimulatedProvider implements AutoCloseable {

    static final String API_KEY = "sk-test-DO-NOT-LEAK-123";
    static final String KEY_ENV = "SIM_API_KEY_FOR_TEST";
    static final Duration SOFT = Duration.ofSeconds(5);
    static final Duration HARD = Duration.ofSeconds(10);
    static final Contract SENTIMENT = Contracts.load(Path.of("../config/contracts")).find("sentiment").orElseThrow();

    private final List<SimRequest> answered = new CopyOnWriteArrayList<>();
    private final Function<SimRequest, JsonNode> generator = SimulatorConfig.defaults().answerFunction();
    final ProviderSimulator sim;
    final ProviderClients clients;

    private SimulatedProvider(HttpClient http, Map<String, String> env) {
        try {
            this.sim = ProviderSimulator.start(SimulatorConfig.defaults().withName("worker-test").withApiKey(API_KEY)
                    .withAnswerFunction(request -> {
                        answered.add(request);
                        return generator.apply(request);
                    }));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.clients = ProviderClients.create(http, env);
    }

    static SimulatedProvider start() {
        return new SimulatedProvider(ProviderClients.defaultHttpClient(), Map.of(KEY_ENV, API_KEY));
    }

    static SimulatedProvider start(HttpClient http, Map<String, String> env) {
        return new SimulatedProvider(http, env);
    }

    static JsonNode variables(String text) {
        return Json.object().put("text", text);
    }

    /** A provider of {@code protocol} at the simulator, with the default (generous) timeouts. */
    ProviderConfig provider(ProviderProtocol protocol) {
        return provider(protocol, sim.baseUrl(), SOFT, HARD);
    }

    static ProviderConfig provider(ProviderProtocol protocol, String baseUrl, Duration soft, Duration hard) {
        return new ProviderConfig("sim-" + protocol.wireName(), protocol, URI.create(baseUrl), "test-model", KEY_ENV,
                "o200k_base", 128_000, soft, hard);
    }

    /** Calls {@code provider} for a new attempt that the simulator treats with {@code behaviour}. */
    ProviderCall call(ProviderConfig provider, Behaviour behaviour, String text) {
        UUID attemptId = UUID.randomUUID();
        sim.setBehaviour(attemptId.toString(), behaviour);
        return clients.call(provider, SENTIMENT, variables(text), attemptId);
    }

    ProviderCall call(ProviderProtocol protocol, Behaviour behaviour) {
        return call(provider(protocol), behaviour, "I loved it, the support team was positive and quick.");
    }

    /** The requests the simulator generated answers for, in arrival order. */
    List<SimRequest> answered() {
        return List.copyOf(answered);
    }

    /** The answer the simulator's own generator makes for {@code request}. */
    JsonNode expectedAnswer(SimRequest request) {
        return generator.apply(request);
    }

    static CallOutcome await(CompletableFuture<CallOutcome> outcome) {
        try {
            return outcome.get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("no outcome within 20 s", e);
        }
    }

    static <T extends CallOutcome> T awaitKind(CompletableFuture<CallOutcome> outcome, Class<T> kind) {
        CallOutcome result = await(outcome);
        assertTrue(kind.isInstance(result), () -> "expected " + kind.getSimpleName() + " but was " + result);
        return kind.cast(result);
    }

    @Override
    public void close() {
        clients.close();
        sim.close();
    }
}
