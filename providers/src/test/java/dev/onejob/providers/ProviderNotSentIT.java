package dev.onejob.providers;

import static dev.onejob.providers.SimulatedProvider.awaitKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.simulator.Behaviour;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Calls whose request never left: each must be FAILED with sent=false and leave no trace at the provider. */
class ProviderNotSentIT {

    /** A simulator of its own for each test, closed after it. */
    @AutoClose
    private final SimulatedProvider provider = SimulatedProvider.start();

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void refusedConnectionIsFailedNotSent(ProviderProtocol protocol) {
        // given
        provider.sim.refuseConnections(true);
        // when
        ProviderCall call = provider.call(protocol, Behaviour.answer());
        // then
        CallOutcome.Failed failed = awaitKind(call.atSoftDeadline(), CallOutcome.Failed.class);
        assertNotSent("connection_refused", failed);
        assertTrue(failed.retryable());
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void unresolvableHostIsFailedNotSent(ProviderProtocol protocol) {
        // given
        ProviderConfig nowhere = SimulatedProvider.provider(protocol, "http://no-such-host.invalid",
                SimulatedProvider.SOFT, SimulatedProvider.HARD);
        // when
        ProviderCall call = provider.call(nowhere, Behaviour.answer(), "some text");
        // then
        assertNotSent("dns_failure", awaitKind(call.atSoftDeadline(), CallOutcome.Failed.class));
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void tlsToAPlainHttpServerIsFailedNotSent(ProviderProtocol protocol) {
        try (PlainHttpPort plain = new PlainHttpPort()) {
            // given an https base URL whose server speaks plain HTTP
            ProviderConfig wrongScheme = SimulatedProvider.provider(protocol, "https://127.0.0.1:" + plain.port(),
                    SimulatedProvider.SOFT, SimulatedProvider.HARD);
            // when
            ProviderCall call = provider.call(wrongScheme, Behaviour.answer(), "some text");
            // then
            CallOutcome.Failed failed = awaitKind(call.atSoftDeadline(), CallOutcome.Failed.class);
            assertNotSent("tls_failure", failed);
            assertFalse(failed.retryable());
        }
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void tlsToTheSimulatorsPlainPortStallsUntilTheConnectTimeoutAndIsNotSent(ProviderProtocol protocol) {
        // given: the simulator's HTTP server waits silently for a request line, so the handshake never ends
        try (SimulatedProvider stalling = connectingWithin(Duration.ofMillis(500))) {
            ProviderConfig wrongScheme = SimulatedProvider.provider(protocol, "https://127.0.0.1:" + stalling.sim.port(),
                    SimulatedProvider.SOFT, SimulatedProvider.HARD);
            // when
            ProviderCall call = stalling.call(wrongScheme, Behaviour.answer(), "some text");
            // then it is not sent: mostly the handshake stalls to the connect timeout; when the random bytes of the
            // ClientHello happen to hold a CRLF, the JDK server answers its "request line" in plain
            // text and the handshake fails at once instead
            CallOutcome.Failed failed = awaitKind(call.atSoftDeadline(), CallOutcome.Failed.class);
            assertNotSent(failed.code().equals("tls_failure") ? "tls_failure" : "connect_timeout", failed, stalling);
            assertFalse(failed.retryable() && failed.code().equals("tls_failure"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void aCallWhoseConnectionIsNotReadyByTheHardDeadlineIsGivenUpNotSent(ProviderProtocol protocol) {
        // given a TLS handshake that stalls (TLS to the simulator's plain port), a connect timeout far past the hard
        // timeout, and a hard timeout of one second
        try (SimulatedProvider stalling = connectingWithin(Duration.ofSeconds(30))) {
            ProviderConfig wrongScheme = SimulatedProvider.provider(protocol, "https://127.0.0.1:" + stalling.sim.port(),
                    Duration.ofMillis(300), Duration.ofSeconds(1));
            // when
            ProviderCall call = stalling.call(wrongScheme, Behaviour.answer(), "some text");
            CallOutcome atSoft = SimulatedProvider.await(call.atSoftDeadline());
            CallOutcome atHard = SimulatedProvider.await(call.atHardDeadline());
            // then UNKNOWN at the soft deadline (the request might still have left), and at the hard deadline given
            // up as not sent (a CRLF in the ClientHello's random bytes can make the handshake fail at once instead)
            CallOutcome.Failed failed = assertInstanceOf(CallOutcome.Failed.class, atHard);
            if (failed.code().equals("not_sent")) {
                assertInstanceOf(CallOutcome.Unknown.class, atSoft);
                assertTrue(failed.retryable());
            }
            assertNotSent(failed.code().equals("tls_failure") ? "tls_failure" : "not_sent", failed, stalling);
        }
    }

    /** A simulator of its own, called through a client with {@code connectTimeout}. */
    private static SimulatedProvider connectingWithin(Duration connectTimeout) {
        return SimulatedProvider.start(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout).build(), Map.of(SimulatedProvider.KEY_ENV, SimulatedProvider.API_KEY));
    }

    private void assertNotSent(String code, CallOutcome.Failed failed) {
        assertNotSent(code, failed, provider);
    }

    private static void assertNotSent(String code, CallOutcome.Failed failed, SimulatedProvider provider) {
        assertEquals(code, failed.code(), failed::toString);
        assertFalse(failed.sent());
        assertNull(failed.httpStatus());
        assertNull(failed.offendingAnswer());
        assertEquals(0, provider.sim.ledger().size(), "the simulator saw no request");
    }
}
