package dev.onejob.providers;

import static dev.onejob.providers.SimulatedProvider.awaitKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.json.Json;
import dev.onejob.simulator.Behaviour;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Calls that reached the provider: error statuses, broken answers and lost connections, for both protocols. */
class ProviderAnsweredIT {

    /** A simulator of its own for each test, closed after it. */
    @AutoClose
    private final SimulatedProvider provider = SimulatedProvider.start();

    @ParameterizedTest(name = "{0} HTTP {1} -> {2} retryable={3}")
    @CsvSource({
        "OPENAI_CHAT, 400, http_400, false", "ANTHROPIC_MESSAGES, 400, http_400, false",
        "OPENAI_CHAT, 408, http_408, true", "ANTHROPIC_MESSAGES, 408, http_408, true",
        "OPENAI_CHAT, 429, http_429, true", "ANTHROPIC_MESSAGES, 429, http_429, true",
        "OPENAI_CHAT, 500, http_500, false", "ANTHROPIC_MESSAGES, 500, http_500, false",
        "OPENAI_CHAT, 501, http_501, false", "ANTHROPIC_MESSAGES, 501, http_501, false",
        "OPENAI_CHAT, 503, http_503, true", "ANTHROPIC_MESSAGES, 503, http_503, true",
        "ANTHROPIC_MESSAGES, 529, http_529, true",
    })
    void errorStatusIsFailedAfterSending(ProviderProtocol protocol, int status, String code, boolean retryable) {
        // when
        ProviderCall call = provider.call(protocol, Behaviour.status(status, 7));
        // then
        CallOutcome.Failed failed = awaitKind(call.atSoftDeadline(), CallOutcome.Failed.class);
        assertEquals(code, failed.code());
        assertEquals(retryable, failed.retryable());
        assertTrue(failed.sent());
        assertEquals(status, failed.httpStatus());
        assertTrue(failed.providerRequestId().startsWith("req_"), failed::toString);
        assertTrue(failed.message().contains("Simulated " + status)
                && failed.message().contains("asked to retry after 7000 ms"), failed::message);
        assertEquals(retryable ? Duration.ofSeconds(7) : null, failed.retryAfter(),
                "the hint is kept for a refusal that may be retried");
        assertEquals(1, provider.sim.requestsWithIdempotencyKey(call.attemptId().toString()));
    }

    @ParameterizedTest(name = "{0} HTTP {1}")
    @CsvSource({"OPENAI_CHAT, 502", "ANTHROPIC_MESSAGES, 502", "OPENAI_CHAT, 504", "ANTHROPIC_MESSAGES, 504"})
    void gatewayErrorIsUnknown(ProviderProtocol protocol, int status) {
        // when
        ProviderCall call = provider.call(protocol, Behaviour.status(status));
        // then
        CallOutcome.Unknown unknown = awaitKind(call.atSoftDeadline(), CallOutcome.Unknown.class);
        assertTrue(unknown.reason().contains("HTTP " + status), unknown::reason);
        assertTrue(call.finalBeforeSoftDeadline(), "a gateway answer is final: nothing more will come");
    }

    static Stream<Arguments> brokenAnswers() {
        Predicate<String> notJson = text -> {
            try {
                Json.parse(text);
                return false;
            } catch (IllegalArgumentException e) {
                return true;
            }
        };
        Stream.Builder<Arguments> cases = Stream.builder();
        for (ProviderProtocol protocol : ProviderProtocol.values()) {
            cases.add(Arguments.of(protocol, Named.of("malformed_json", Behaviour.malformedJson()),
                    Named.of("the cut-off JSON", notJson.and(text -> text.startsWith("{")))));
            cases.add(Arguments.of(protocol, Named.of("invent_key", Behaviour.inventKey("confidence")),
                    Named.of("the invented key", (Predicate<String>) text -> text.contains("\"confidence\""))));
            cases.add(Arguments.of(protocol, Named.of("drop_field", Behaviour.dropField("sentiment", 1)),
                    Named.of("the answer without the field", (Predicate<String>) text -> text.contains("summary")
                            && !text.contains("sentiment"))));
            cases.add(Arguments.of(protocol, Named.of("ignore_format", Behaviour.ignoreFormat()),
                    Named.of("the prose", (Predicate<String>) text -> text.startsWith("Sure!"))));
        }
        return cases.build();
    }

    @ParameterizedTest(name = "{0} {1} keeps {2}")
    @MethodSource("brokenAnswers")
    void brokenAnswerIsAContractViolationKeepingTheAnswer(ProviderProtocol protocol, Behaviour behaviour,
                                                          Predicate<String> offendingAnswerIs) {
        // when
        ProviderCall call = provider.call(protocol, behaviour);
        // then
        CallOutcome.Failed failed = awaitKind(call.atSoftDeadline(), CallOutcome.Failed.class);
        assertEquals("contract_violation", failed.code(), failed::toString);
        assertTrue(failed.sent());
        assertEquals(200, failed.httpStatus());
        assertNotNull(failed.providerRequestId());
        assertTrue(offendingAnswerIs.test(failed.offendingAnswer()), failed::offendingAnswer);
        assertTrue(failed.message().startsWith("the answer breaks contract sentiment: "), failed::message);
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void violationMessageNamesWhatIsWrong(ProviderProtocol protocol) {
        // when
        CallOutcome.Failed invented = awaitKind(provider.call(protocol, Behaviour.inventKey("confidence"))
                .atSoftDeadline(), CallOutcome.Failed.class);
        CallOutcome.Failed dropped = awaitKind(provider.call(protocol, Behaviour.dropField("summary", 1))
                .atSoftDeadline(), CallOutcome.Failed.class);
        // then
        assertTrue(invented.message().contains("confidence"), invented::message);
        assertTrue(dropped.message().contains("summary"), dropped::message);
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void connectionResetAfterTheRequestIsUnknown(ProviderProtocol protocol) {
        // when
        ProviderCall call = provider.call(protocol, Behaviour.reset());
        // then
        CallOutcome.Unknown unknown = awaitKind(call.atSoftDeadline(), CallOutcome.Unknown.class);
        assertTrue(unknown.reason().contains("after the request could have been written"), unknown::reason);
        assertEquals(1, provider.sim.requestsWithIdempotencyKey(call.attemptId().toString()),
                "the simulator did receive the request");
        assertNull(provider.sim.ledger().get(0).status(), "and never answered it");
        assertTrue(call.finalBeforeSoftDeadline());
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void callForTheOtherProtocolIsRefused(ProviderProtocol protocol) {
        // given
        ProviderProtocol other = protocol == ProviderProtocol.OPENAI_CHAT
                ? ProviderProtocol.ANTHROPIC_MESSAGES : ProviderProtocol.OPENAI_CHAT;
        // when / then
        assertThrows(IllegalArgumentException.class, () -> provider.clients.forProtocol(other).call(
                provider.provider(protocol), SimulatedProvider.SENTIMENT, SimulatedProvider.variables("x"),
                UUID.randomUUID()));
    }
}
