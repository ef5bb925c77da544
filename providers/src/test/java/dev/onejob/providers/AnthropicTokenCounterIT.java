package dev.onejob.providers;

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

    @Test
    void countIsTheProvidersInputTokens() throws Exception {
        try (SimulatedProvider provider = SimulatedProvider.start()) {
            // given
            ProviderConfig anthropic = provider.provider(ProviderProtocol.ANTHROPIC_MESSAGES);
            AnthropicTokenCounter counter = provider.clients.tokenCounter();
            long plain = counter.count(anthropic, SYSTEM, USER, SimulatedProvider.SENTIMENT.outputSchema());
            // when the simulator is told to count 1000 more
            provider.sim.setTokenCountAdjustment(1.0, 1000);
            long adjusted = counter.count(anthropic, SYSTEM, USER, SimulatedProvider.SENTIMENT.outputSchema());
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
                            SYSTEM, USER, SimulatedProvider.SENTIMENT.outputSchema()));
            // then
            assertTrue(failed.getMessage().contains("HTTP 401"), failed::getMessage);
            assertFalse(failed.getMessage().contains("sk-wrong-key-789"), failed::getMessage);
        }
    }
}
