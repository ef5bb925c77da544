package dev.onejob.providers;

import static dev.onejob.providers.SimulatedProvider.API_KEY;
import static dev.onejob.providers.SimulatedProvider.KEY_ENV;
import static dev.onejob.providers.SimulatedProvider.awaitKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.simulator.Behaviour;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The API key reaches the provider's auth header and nothing else: no outcome, message or exception. */
class ApiKeyIT {

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void keyNeverAppearsInOutcomesOrExceptions(ProviderProtocol protocol) throws Exception {
        try (SimulatedProvider provider = SimulatedProvider.start()) {
            // given
            List<String> texts = new ArrayList<>();
            // when
            for (Behaviour behaviour : List.of(Behaviour.answer(), Behaviour.status(500), Behaviour.malformedJson(),
                    Behaviour.reset(), Behaviour.status(502))) {
                ProviderCall call = provider.call(protocol, behaviour);
                texts.add(SimulatedProvider.await(call.atHardDeadline()).toString());
                texts.add(call.toString());
            }
            texts.add(assertThrows(AnthropicTokenCounter.CountFailed.class, () -> provider.clients.tokenCounter()
                    .count(SimulatedProvider.provider(ProviderProtocol.ANTHROPIC_MESSAGES, "http://no-such-host.invalid",
                            SimulatedProvider.SOFT, SimulatedProvider.HARD),
                            AnthropicTokenCounterIT.prompt("s", "u"))).getMessage());
            // then
            assertEquals(11, texts.size());
            assertTrue(texts.get(0).contains("Succeeded"), texts.get(0));
            texts.forEach(text -> assertFalse(text.contains(API_KEY), text));
        }
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void keyEchoedByTheProviderIsCutOutOfTheOutcome(ProviderProtocol protocol) throws IOException {
        // the simulator first: its class sets the JDK HttpServer's TCP_NODELAY before any server exists
        try (SimulatedProvider provider = SimulatedProvider.start()) {
            // given a provider that quotes the presented key in its 401 answer, as some real ones partly do
            HttpServer echoing = keyEchoingServer();
            try {
                // when
                ProviderCall call = provider.call(SimulatedProvider.provider(protocol,
                        "http://127.0.0.1:" + echoing.getAddress().getPort(), SimulatedProvider.SOFT,
                        SimulatedProvider.HARD), Behaviour.answer(), "text");
                // then
                CallOutcome.Failed failed = awaitKind(call.atSoftDeadline(), CallOutcome.Failed.class);
                assertEquals("http_401", failed.code());
                assertTrue(failed.message().contains("Incorrect API key provided: "), failed::message);
                assertFalse(failed.toString().contains(API_KEY), failed::toString);
            } finally {
                echoing.stop(0);
            }
        }
    }

    private static HttpServer keyEchoingServer() throws IOException {
        HttpServer echoing = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        echoing.createContext("/", exchange -> {
            String presented = exchange.getRequestHeaders().getFirst("Authorization")
                    + " " + exchange.getRequestHeaders().getFirst("x-api-key");
            byte[] body = ("{\"error\":{\"message\":\"Incorrect API key provided: " + presented + "\"}}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(401, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        echoing.start();
        return echoing;
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void wrongKeyIsRejectedWithHttp401(ProviderProtocol protocol) {
        // given
        try (SimulatedProvider provider = SimulatedProvider.start(ProviderClients.defaultHttpClient(),
                Map.of(KEY_ENV, "sk-wrong-key-456"))) {
            // when
            ProviderCall call = provider.call(protocol, Behaviour.answer());
            // then
            CallOutcome.Failed failed = awaitKind(call.atSoftDeadline(), CallOutcome.Failed.class);
            assertEquals("http_401", failed.code());
            assertFalse(failed.retryable());
            assertTrue(failed.sent());
            assertFalse(failed.toString().contains("sk-wrong-key-456"), failed::toString);
            assertEquals("rejected", provider.sim.ledger().get(0).behaviour());
        }
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void missingKeyVariableFailsBeforeSending(ProviderProtocol protocol) {
        // given an environment without the variable the provider names
        try (SimulatedProvider provider = SimulatedProvider.start(ProviderClients.defaultHttpClient(),
                Map.of("SOME_OTHER_VARIABLE", API_KEY))) {
            // when
            ProviderCall call = provider.call(protocol, Behaviour.answer());
            // then
            assertTrue(call.atSoftDeadline().isDone() && call.atHardDeadline().isDone(), "decided without I/O");
            CallOutcome.Failed failed = awaitKind(call.atSoftDeadline(), CallOutcome.Failed.class);
            assertEquals("missing_api_key", failed.code());
            assertFalse(failed.sent());
            assertFalse(failed.retryable());
            assertTrue(failed.message().contains(KEY_ENV), failed::message);
            assertEquals(0, provider.sim.ledger().size());
        }
    }
}
