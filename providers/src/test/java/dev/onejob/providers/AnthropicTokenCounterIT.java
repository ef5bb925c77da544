package dev.onejob.providers;

import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Prompt;
import java.util.List;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Token counting against the simulator's {@code /v1/messages/count_tokens}. */
class AnthropicTokenCounterIT {

    private static final String SYSTEM = "You classify the sentiment of customer texts.";
    private static final String USER = "Text: I loved it.";
    /** The sentiment contract's prompt, with a system and a user text of the test's own. */
    static final Prompt PROMPT = prompt(SYSTEM, USER);

    static Prompt prompt(String system, String user) {
        Contract sentiment = SimulatedProvider.SENTIMENT;
        return new Prompt(sentiment.id(), system, List.of(new Prompt.Turn("user", user)), 0.0, null,
                sentiment.maxTokens(), List.of(), sentiment.outputSchema(), sentiment.id(), sentiment.outputValidator());
    }

    @Test
    void countIsTheProvidersInputTokens() throws Exception {
        try (SimulatedProvider provider = SimulatedProvider.start()) {
            // given
            ProviderConfig anthropic = provider.provider(ProviderProtocol.ANTHROPIC_MESSAGES);
            AnthropicTokenCounter counter = provider.clients.tokenCounter();
            long plain = counter.count(anthropic, PROMPT);
            // when the simulator is told to count 1000 more
            provider.sim.setTokenCountAdjustment(1.0, 1000);
            long adjusted = counter.count(anthropic, PROMPT);
            // then
            assertTrue(plain > (SYSTEM.length() + USER.length()) / 4, "the tool definition counts too: " + plain);
            assertEquals(plain + 1000, adjusted);
            assertEquals("anthropic-count-tokens", provider.sim.ledger().get(0).protocol());
        }
    }

    @Test
    void wrongKeyFailsWithTheStatusAndWithoutTheKey() {
        try (SimulatedProvider provider = SimulatedProvider.start(ProviderClients.defaultHttpClient(),
                Map.of(SimulatedProvider.KEY_ENV, "sk-wrong-key-789"))) {
            // when
            AnthropicTokenCounter.CountFailed failed = assertThrows(AnthropicTokenCounter.CountFailed.class,
                    () -> provider.clients.tokenCounter().count(provider.provider(ProviderProtocol.ANTHROPIC_MESSAGES),
                            PROMPT));
            // then
            assertTrue(failed.getMessage().contains("HTTP 401"), failed::getMessage);
            assertFalse(failed.getMessage().contains("sk-wrong-key-789"), failed::getMessage);
        }
    }
}
