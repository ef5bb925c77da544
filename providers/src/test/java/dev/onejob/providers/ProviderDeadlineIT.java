package dev.onejob.providers;

import static dev.onejob.providers.SimulatedProvider.awaitKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.simulator.Behaviour;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The soft and hard deadlines of real calls to a provider that answers late or never. */
class ProviderDeadlineIT {

    private static final Duration SOFT = Duration.ofSeconds(1);

    /** A simulator of its own for each test, closed after it. */
    @AutoClose
    private final SimulatedProvider provider = SimulatedProvider.start();

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void hangingProviderIsUnknownAtTheSoftDeadlineAndAgainAtTheHardDeadline(ProviderProtocol protocol) {
        // given
        ProviderConfig impatient = SimulatedProvider.provider(protocol, provider.sim.baseUrl(), SOFT,
                Duration.ofSeconds(2));
        // when
        ProviderCall call = provider.call(impatient, Behaviour.hangForever(), "some text");
        // then
        assertFalse(call.atSoftDeadline().isDone(), "call() returned without waiting for the provider");
        CallOutcome.Unknown atSoft = awaitKind(call.atSoftDeadline(), CallOutcome.Unknown.class);
        assertEquals("no answer within soft timeout PT1S", atSoft.reason());
        assertTrue(atSoft.latency().compareTo(SOFT) >= 0, atSoft::toString);
        assertFalse(call.finalBeforeSoftDeadline());
        CallOutcome.Unknown atHard = awaitKind(call.atHardDeadline(), CallOutcome.Unknown.class);
        assertTrue(atHard.reason().contains("timeout"), atHard::reason);
        assertTrue(atHard.latency().compareTo(atSoft.latency()) > 0, atHard::toString);
        assertEquals(1, provider.sim.requestsWithIdempotencyKey(call.attemptId().toString()));
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void lateAnswerIsUnknownAtTheSoftDeadlineThenSucceedsBeforeTheHardDeadline(ProviderProtocol protocol) {
        // given a provider that answers after 3 s, between the soft (1 s) and the hard (10 s) deadline
        ProviderConfig patient = SimulatedProvider.provider(protocol, provider.sim.baseUrl(), SOFT,
                Duration.ofSeconds(10));
        // when
        ProviderCall call = provider.call(patient, Behaviour.answerAfter(Duration.ofSeconds(3)), "a positive text");
        // then
        CallOutcome.Unknown atSoft = awaitKind(call.atSoftDeadline(), CallOutcome.Unknown.class);
        assertFalse(call.atHardDeadline().isDone(), "the soft outcome came before the late answer");
        assertFalse(call.finalBeforeSoftDeadline());
        CallOutcome.Succeeded late = awaitKind(call.atHardDeadline(), CallOutcome.Succeeded.class);
        assertTrue(late.latency().compareTo(atSoft.latency()) > 0, late::toString);
        assertEquals("positive", late.result().get("sentiment").asText());
        assertEquals(atSoft, SimulatedProvider.await(call.atSoftDeadline()), "the soft outcome stays what it was");
    }
}
