package dev.onejob.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.billing.Prices;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A provider's prices, as the providers file states them, and the errors a wrong price gets. */
class ProvidersTest {
    @TempDir
    Path dir;

    private Providers load(String prices) throws IOException {
        Path file = dir.resolve("providers.yaml");
        Files.writeString(file, """
                providers:
                  - id: primary
                    protocol: openai-chat
                    base_url: http://127.0.0.1:9001
                    model: gpt-4o-mini
                """ + prices);
        return Providers.load(file, Map.of());
    }

    @Test
    void pricesAreReadExactlyAndCachedInputDefaultsToInput() throws IOException {
        Prices prices = load("""
                    prices:
                      input: 0.15
                      output: 0.60
                """).find("primary").orElseThrow().prices();
        assertEquals(new Prices(new BigDecimal("0.15"), new BigDecimal("0.6"), new BigDecimal("0.15")), prices);
    }

    @Test
    void theShippedProvidersFileHasPricesForEveryProvider() {
        Providers shipped = Providers.load(Path.of("../config/providers.yaml"), Map.of());
        shipped.all().forEach(p -> assertTrue(p.prices() != null, p.id()));
    }

    @Test
    void aProviderWithoutPricesHasNone() throws IOException {
        assertNull(load("").find("primary").orElseThrow().prices());
    }

    @Test
    void aWrongPriceIsNamedWithItsPath() {
        ConfigException negative = assertThrows(ConfigException.class, () -> load("""
                    prices: {input: -1, output: 1}
                """));
        assertTrue(negative.getMessage().contains("providers[0].prices.input"), negative.getMessage());
        ConfigException invented = assertThrows(ConfigException.class, () -> load("""
                    prices: {input: 1, output: 1, per_request: 2}
                """));
        assertTrue(invented.getMessage().contains("prices.per_request"), invented.getMessage());
        ConfigException missing = assertThrows(ConfigException.class, () -> load("""
                    prices: {input: 1}
                """));
        assertTrue(missing.getMessage().contains("prices.output"), missing.getMessage());
    }
}
