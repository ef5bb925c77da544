package dev.onejob.providers;

import static dev.onejob.providers.SimulatedProvider.awaitKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.simulator.Behaviour;
import dev.onejob.simulator.LedgerEntry;
import dev.onejob.simulator.SimRequest;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Successful calls over real HTTP against the provider simulator, for both wire protocols. */
class ProviderSuccessIT {

    /** A simulator of its own for each test, closed after it. */
    @AutoClose
    private final SimulatedProvider provider = SimulatedProvider.start();

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void answerIsTheSimulatorsValidAnswerWithItsRequestId(ProviderProtocol protocol) {
        // given a simulator that answers normally
        // when
        ProviderCall call = provider.call(protocol, Behaviour.answer());
        // then
        CallOutcome.Succeeded outcome = awaitKind(call.atSoftDeadline(), CallOutcome.Succeeded.class);
        SimRequest request = provider.answered().get(0);
        assertEquals(provider.expectedAnswer(request), outcome.result());
        assertEquals("positive", outcome.result().get("sentiment").asText(), "the enum word in the text wins");
        assertTrue(outcome.result().get("summary").asText().matches("sim-[0-9a-f]{8}"), outcome::toString);
        assertEquals(List.of(), SimulatedProvider.SENTIMENT.outputProblems(outcome.result()));
        assertTrue(outcome.providerRequestId().startsWith("req_"), "from the header: " + outcome.providerRequestId());
        assertTrue(outcome.usage() != null && outcome.usage().inputTokens() > 0 && outcome.usage().outputTokens() > 0,
                "the reply's usage block: " + outcome.usage());
        assertTrue(call.finalBeforeSoftDeadline());
        assertEquals(outcome, SimulatedProvider.await(call.atHardDeadline()));
    }

    @ParameterizedTest
    @EnumSource(ProviderProtocol.class)
    void everyCallCarriesTheAttemptIdAsIdempotencyKeyExactlyOnce(ProviderProtocol protocol) {
        // given
        ProviderCall first = provider.call(protocol, Behaviour.answer());
        ProviderCall second = provider.call(protocol, Behaviour.answer());
        // when
        awaitKind(first.atHardDeadline(), CallOutcome.Succeeded.class);
        awaitKind(second.atHardDeadline(), CallOutcome.Succeeded.class);
        // then
        assertEquals(1, provider.sim.requestsWithIdempotencyKey(first.attemptId().toString()));
        assertEquals(1, provider.sim.requestsWithIdempotencyKey(second.attemptId().toString()));
        List<LedgerEntry> ledger = provider.sim.ledger();
        assertEquals(2, ledger.size());
        assertEquals(protocol.wireName(), ledger.get(0).protocol());
        assertEquals("test-model", ledger.get(0).model());
    }

    @Test
    void openAiRequestAsksForTheContractsSchemaStrictly() {
        // when
        awaitKind(provider.call(ProviderProtocol.OPENAI_CHAT, Behaviour.answer()).atHardDeadline(),
                CallOutcome.Succeeded.class);
        // then
        SimRequest request = provider.answered().get(0);
        JsonNode body = request.body();
        assertEquals("system", body.at("/messages/0/role").asText());
        assertEquals(SimulatedProvider.SENTIMENT.system().text(), body.at("/messages/0/content").asText());
        assertEquals("Text: I loved it, the support team was positive and quick.\n",
                body.at("/messages/1/content").asText());
        assertEquals(200, body.get("max_tokens").asInt());
        assertEquals(0.0, body.get("temperature").asDouble());
        assertEquals("json_schema", body.at("/response_format/type").asText());
        assertEquals("sentiment", body.at("/response_format/json_schema/name").asText());
        assertTrue(body.at("/response_format/json_schema/strict").asBoolean());
        assertEquals(SimulatedProvider.SENTIMENT.outputSchema(), request.outputSchema());
    }

    @Test
    void anthropicRequestForcesTheEmitResultTool() {
        // when
        awaitKind(provider.call(ProviderProtocol.ANTHROPIC_MESSAGES, Behaviour.answer()).atHardDeadline(),
                CallOutcome.Succeeded.class);
        // then
        SimRequest request = provider.answered().get(0);
        JsonNode body = request.body();
        assertEquals(SimulatedProvider.SENTIMENT.system().text(), body.get("system").asText());
        assertEquals("user", body.at("/messages/0/role").asText());
        assertEquals(200, body.get("max_tokens").asInt());
        assertEquals("emit_result", body.at("/tools/0/name").asText());
        assertEquals("tool", body.at("/tool_choice/type").asText());
        assertEquals("emit_result", request.toolName());
        assertEquals(SimulatedProvider.SENTIMENT.outputSchema(), request.outputSchema());
    }
}
