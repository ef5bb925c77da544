package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
}
