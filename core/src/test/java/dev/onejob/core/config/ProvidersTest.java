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
import java.time.Duration;
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

    @Test
    void deadlinesRetriesAndAnswerSizeHaveDefaultsAndAreRead() throws IOException {
        ProviderConfig defaults = load("").find("primary").orElseThrow();
        assertEquals(Duration.ofHours(1), defaults.maxDuration());
        assertEquals(RetryPolicy.DEFAULT, defaults.retry());
        assertEquals(ProviderConfig.DEFAULT_MAX_ANSWER_BYTES, defaults.maxAnswerBytes());

        ProviderConfig set = load("""
                    max_duration: 30m
                    retry: {max_attempts: 3, initial_backoff: 500ms, max_backoff: 20s}
                    max_answer_bytes: 1048576
                """).find("primary").orElseThrow();
        assertEquals(Duration.ofMinutes(30), set.maxDuration());
        assertEquals(new RetryPolicy(3, Duration.ofMillis(500), Duration.ofSeconds(20)),
                set.retry());
        assertEquals(1048576, set.answerLimit(null));
        assertEquals(200_000 * ProviderConfig.BYTES_PER_TOKEN_BOUND, set.answerLimit(200_000),
                "a call's max_tokens may allow more than the provider's bound");
        assertEquals(ProviderConfig.ANSWER_BYTES_LIMIT, set.answerLimit(10_000_000), "never past what topics carry");
        assertEquals(Cooldown.DEFAULT, set.cooldown());
        assertEquals(new Cooldown(0, Duration.ofSeconds(30), Duration.ofMinutes(2)), load("""
                    cooldown: {allowed_fails: 0, window: 30s, duration: 2m}
                """).find("primary").orElseThrow().cooldown());
        assertThrows(ConfigException.class, () -> load("""
                    cooldown: {allowed_fails: -1}
                """));
    }

    @Test
    void wrongDeadlinesAndRetriesAreNamedWithTheirPath() {
        ConfigException shortLength = assertThrows(ConfigException.class, () -> load("""
                    hard_timeout: 2m
                    max_duration: 1m
                """));
        assertTrue(shortLength.getMessage().contains("providers[0].max_duration"), shortLength.getMessage());
        ConfigException unknown = assertThrows(ConfigException.class, () -> load("""
                    retry: {tries: 3}
                """));
        assertTrue(unknown.getMessage().contains("providers[0].retry.tries"), unknown.getMessage());
        ConfigException many = assertThrows(ConfigException.class, () -> load("""
                    retry: {max_attempts: 99}
                """));
        assertTrue(many.getMessage().contains("max_attempts must be 1..20"), many.getMessage());
        ConfigException huge = assertThrows(ConfigException.class, () -> load("""
                    max_answer_bytes: 999999999
                """));
        assertTrue(huge.getMessage().contains("max_answer_bytes must be at most"), huge.getMessage());
    }

    @Test
    void aReasoningModelsOutputBoundIsSentUnderTheFieldTheFileNames() throws IOException {
        assertEquals(ProviderConfig.MAX_TOKENS, load("").find("primary").orElseThrow().maxTokensField());
        assertEquals(ProviderConfig.MAX_COMPLETION_TOKENS, load("""
                    max_tokens_field: max_completion_tokens
                """).find("primary").orElseThrow().maxTokensField());
        ConfigException other = assertThrows(ConfigException.class, () -> load("""
                    max_tokens_field: max_output_tokens
                """));
        assertTrue(other.getMessage().contains("providers[0].max_tokens_field"), other.getMessage());
    }
}
