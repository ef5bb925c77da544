package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SimulatorConfigTest {

    @Test
    void emptyEnvironmentGivesTheDocumentedDefaults() {
        // when
        SimulatorConfig config = SimulatorConfig.fromEnvironment(Map.of());

        // then
        assertEquals(9001, config.port());
        assertEquals("sim", config.name());
        assertNull(config.expectedApiKey());
    }

    @Test
    void environmentValuesAreUsed() {
        // when
        SimulatorConfig config = SimulatorConfig.fromEnvironment(
                Map.of("SIM_PORT", "9100", "SIM_NAME", "openai-a", "SIM_API_KEY", "sk-secret"));

        // then
        assertEquals(9100, config.port());
        assertEquals("openai-a", config.name());
        assertEquals("sk-secret", config.expectedApiKey());
    }

    @Test
    void badPortIsRejectedNamingTheVariable() {
        // when
        IllegalArgumentException notANumber = assertThrows(IllegalArgumentException.class,
                () -> SimulatorConfig.fromEnvironment(Map.of("SIM_PORT", "nine")));
        IllegalArgumentException outOfRange = assertThrows(IllegalArgumentException.class,
                () -> SimulatorConfig.fromEnvironment(Map.of("SIM_PORT", "70000")));

        // then
        assertTrue(notANumber.getMessage().contains("SIM_PORT"));
        assertTrue(outOfRange.getMessage().contains("SIM_PORT"));
    }

    @Test
    void toStringNeverShowsTheApiKey() {
        // when
        String text = SimulatorConfig.defaults().withApiKey("sk-very-secret").toString();

        // then
        assertFalse(text.contains("sk-very-secret"), text);
    }

    @Test
    void defaultPricesAreThoseOfOnejobsProviderConfigAndOtherModelsAreFree() {
        // when
        SimulatorConfig config = SimulatorConfig.defaults();

        // then
        assertEquals(Price.perMillion("0.15", "0.60", "0.075"), config.priceOf("gpt-4o-mini"));
        assertEquals(Price.perMillion("3.00", "15.00", "0.30"), config.priceOf("claude-sonnet-4-5"));
        assertEquals(Price.FREE, config.priceOf("gpt-unpriced"));
        assertEquals(Price.FREE, config.priceOf(null));
    }

    @Test
    void aCustomPriceReplacesThatModelsPriceOnlyAndWithPricesReplacesThemAll() {
        // given
        Price custom = Price.perMillion("1.25", "10.00", "0.125");

        // when
        SimulatorConfig one = SimulatorConfig.defaults().withPrice("gpt-4o-mini", custom);
        SimulatorConfig all = SimulatorConfig.defaults().withPrices(Map.of("gpt-5", custom));

        // then
        assertEquals(custom, one.priceOf("gpt-4o-mini"));
        assertEquals(new BigDecimal("0.0022500000"), one.priceOf("gpt-4o-mini").cost(1000, 100, 0));
        assertEquals(SimulatorConfig.DEFAULT_PRICES.get("claude-sonnet-4-5"), one.priceOf("claude-sonnet-4-5"));
        assertEquals(custom, all.priceOf("gpt-5"));
        assertEquals(Price.FREE, all.priceOf("gpt-4o-mini"));
        assertEquals(custom, one.withName("other").withPort(0).priceOf("gpt-4o-mini"), "with... keeps the prices");
    }
}
