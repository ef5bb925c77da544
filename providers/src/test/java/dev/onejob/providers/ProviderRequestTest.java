package dev.onejob.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.contract.Prompt;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Pure parts of building a request: the schema name and the API key lookup. */
class ProviderRequestTest {

    @ParameterizedTest(name = "contract id ''{0}'' -> schema name ''{1}''")
    @CsvSource({"sentiment, sentiment", "invoice.v2, invoice_v2", "Ticket Triage/EU, Ticket_Triage_EU",
        "a-b_c, a-b_c"})
    void schemaNameKeepsOnlyWhatOpenAiAccepts(String contractId, String expected) {
        assertEquals(expected, Prompt.schemaNameOf(contractId));
    }

    @Test
    void longSchemaNameIsCutTo64Characters() {
        assertEquals(64, Prompt.schemaNameOf("x".repeat(100)).length());
    }

    @Test
    void providerWithoutKeyVariableNeedsNoKey() throws Exception {
        assertNull(ApiKeys.lookup(provider(null), Map.of()));
    }

    @Test
    void keyIsReadFromTheNamedVariableAndTrimmed() throws Exception {
        assertEquals("sk-abc", ApiKeys.lookup(provider("MY_KEY"), Map.of("MY_KEY", " sk-abc\n")));
    }

    @Test
    void emptyVariableIsAMissingKeyNamedButNotShown() {
        // when
        ApiKeys.Problem problem = assertThrows(ApiKeys.Problem.class,
                () -> ApiKeys.lookup(provider("MY_KEY"), Map.of("MY_KEY", "  ")));
        // then
        assertEquals("missing_api_key", problem.code());
        assertTrue(problem.getMessage().contains("MY_KEY"), problem::getMessage);
    }

    @Test
    void keyWithAControlCharacterIsRefusedWithoutQuotingIt() {
        // when
        ApiKeys.Problem problem = assertThrows(ApiKeys.Problem.class,
                () -> ApiKeys.lookup(provider("MY_KEY"), Map.of("MY_KEY", "sk-secret\u0000tail")));
        // then
        assertEquals("invalid_api_key", problem.code());
        assertFalse(problem.getMessage().contains("sk-secret"), problem::getMessage);
    }

    @Test
    void redactionCutsEveryOccurrenceOfTheKey() {
        // given
        CallOutcome.Failed failed = new CallOutcome.Failed("http_401", "bad key sk-1 (sk-1)", false, true, 401,
                null, "echo sk-1", Duration.ZERO);
        // when
        CallOutcome.Failed redacted = (CallOutcome.Failed) ApiKeys.redact(failed, "sk-1");
        // then
        assertEquals("bad key *** (***)", redacted.message());
        assertEquals("echo ***", redacted.offendingAnswer());
    }

    private static ProviderConfig provider(String keyEnv) {
        return new ProviderConfig("p", ProviderProtocol.OPENAI_CHAT, URI.create("http://127.0.0.1:1"), "m", keyEnv,
                "o200k_base", 1000, Duration.ofSeconds(1), Duration.ofSeconds(2));
    }
}
