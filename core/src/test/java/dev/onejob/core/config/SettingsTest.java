package dev.onejob.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SettingsTest {

    @Test
    void unsetAndBlankTakeTheDefault() {
        Settings settings = Settings.of(Map.of("BLANK", "  "));
        assertEquals(7, settings.integer("UNSET", 7, 1, 10));
        assertEquals(7, settings.integer("BLANK", 7, 1, 10));
        assertTrue(settings.flag("UNSET", true));
        assertEquals(Duration.ofSeconds(1), settings.duration("BLANK", Duration.ofSeconds(1), Duration.ZERO,
                Duration.ofHours(1)));
        assertEquals(Optional.empty(), settings.optionalDuration("UNSET", Duration.ZERO, Duration.ofHours(1)));
        assertEquals(Path.of("config/x.yaml"), settings.path("UNSET", "config/x.yaml"));
    }

    @Test
    void aSetValueIsParsedAndTrimmed() {
        Settings settings = Settings.of(Map.of("N", " 42 ", "F", "FALSE", "D", "500ms", "O", "6h", "P", "a/b"));
        assertEquals(42, settings.integer("N", 1, 1, 100));
        assertFalse(settings.flag("F", true));
        assertEquals(Duration.ofMillis(500), settings.duration("D", Duration.ZERO, Duration.ZERO, Duration.ofSeconds(1)));
        assertEquals(Optional.of(Duration.ofHours(6)), settings.optionalDuration("O", Duration.ZERO,
                Duration.ofDays(30)));
        assertEquals(Path.of("a/b"), settings.path("P", "x"));
    }

    @Test
    void offTurnsAnOptionalDurationOff() {
        assertEquals(Optional.empty(), Settings.of(Map.of("O", "off")).optionalDuration("O", Duration.ZERO,
                Duration.ofDays(1)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"many", "0", "101", "4.5"})
    void aBadNumberNamesTheVariableAndTheRange(String value) {
        ConfigException error = assertThrows(ConfigException.class,
                () -> Settings.of(Map.of("WORKER_MAX_IN_FLIGHT", value)).integer("WORKER_MAX_IN_FLIGHT", 1, 1, 100));
        assertTrue(error.getMessage().contains("WORKER_MAX_IN_FLIGHT") && error.getMessage().contains("1 to 100"),
                error.getMessage());
    }

    @Test
    void aFlagIsTrueOrFalseNothingElse() {
        ConfigException error = assertThrows(ConfigException.class,
                () -> Settings.of(Map.of("OUTBOX_RELAY", "yes")).flag("OUTBOX_RELAY", true));
        assertTrue(error.getMessage().contains("OUTBOX_RELAY") && error.getMessage().contains("true or false"));
    }

    @Test
    void aDurationOutsideItsRangeIsRefusedWithTheRange() {
        ConfigException error = assertThrows(ConfigException.class, () -> Settings.of(Map.of("SWEEP_INTERVAL", "2h"))
                .duration("SWEEP_INTERVAL", Duration.ofSeconds(1), Duration.ofMillis(10), Duration.ofMinutes(10)));
        assertTrue(error.getMessage().contains("SWEEP_INTERVAL") && error.getMessage().contains("10ms to 10m"),
                error.getMessage());
        ConfigException unreadable = assertThrows(ConfigException.class, () -> Settings.of(Map.of("D", "soon"))
                .duration("D", Duration.ZERO, Duration.ZERO, Duration.ofHours(1)));
        assertTrue(unreadable.getMessage().contains("'soon'"));
    }
}
