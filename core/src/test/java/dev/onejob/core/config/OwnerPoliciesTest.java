package dev.onejob.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.billing.JobCost;
import dev.onejob.core.billing.OwnerLimits;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.json.Json;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The owners file as users write it, and the bound a job reserves. */
class OwnerPoliciesTest {
    @TempDir
    Path dir;

    private OwnerPolicies load(String yaml) throws IOException {
        Path file = dir.resolve("owners.yaml");
        Files.writeString(file, yaml);
        return OwnerPolicies.load(file);
    }

    /** The file is refused with a message that names {@code what} (the field's path, or what it must be). */
    private void assertRefusedNaming(String yaml, String what) {
        String message = assertThrows(ConfigException.class, () -> load(yaml)).getMessage();
        assertTrue(message.contains(what), message);
    }

    @Test
    void anOwnersEntryReplacesTheDefaultsFieldByField() throws IOException {
        OwnerPolicies budgets = load("""
                defaults: {spend_cap_usd: 50, period: month, max_live_attempts: 100}
                owners:
                  alice: {spend_cap_usd: 5.5, period: day}
                  bob: {max_live_attempts: null}
                """);
        assertEquals(new OwnerLimits(new BigDecimal("5.5"), OwnerLimits.Period.DAY, 100), budgets.limitsFor("alice"));
        assertEquals(new OwnerLimits(new BigDecimal("50"), OwnerLimits.Period.MONTH, null), budgets.limitsFor("bob"));
        assertEquals(new OwnerLimits(new BigDecimal("50"), OwnerLimits.Period.MONTH, 100), budgets.limitsFor("carol"));
        assertEquals(OwnerPolicies.DEFAULT_KEY_RETENTION, budgets.keyRetentionFor("carol"));
    }

    @Test
    void keyRetentionIsPerOwnerWithADefault() throws IOException {
        OwnerPolicies policies = load("""
                defaults: {key_retention: 48h}
                owners:
                  alice: {key_retention: 24h}
                """);
        assertEquals(Duration.ofHours(24), policies.keyRetentionFor("alice"));
        assertEquals(Duration.ofHours(48), policies.keyRetentionFor("bob"));
        assertRefusedNaming("defaults: {key_retention: forever}", "defaults.key_retention");
        assertRefusedNaming("defaults: {key_retention: 0h}", "more than 0");
    }

    @Test
    void noFileAndTheShippedFileLimitNobody() {
        assertSame(OwnerPolicies.NONE, OwnerPolicies.load(dir.resolve("absent.yaml")));
        assertTrue(!OwnerPolicies.load(Path.of("../config/owners.yaml")).limitsFor("anyone").limitsAnything());
    }

    @Test
    void aWrongLimitIsNamedWithItsPath() {
        assertRefusedNaming("owners: {alice: {spend_cap_usd: -1}}", "owners.alice.spend_cap_usd");
        assertRefusedNaming("defaults: {period: week}", "defaults.period");
        assertRefusedNaming("defaults: {max_live: 3}", "defaults.max_live");
    }

    @Test
    void periodsStartOnTheirFirstUtcDay() {
        assertEquals(LocalDate.parse("2026-12-01"), OwnerLimits.Period.MONTH.start(LocalDate.parse("2026-12-05")));
        assertEquals(LocalDate.parse("2026-12-05"), OwnerLimits.Period.DAY.start(LocalDate.parse("2026-12-05")));
    }

    @Test
    void aJobReservesEveryProviderOfItsRouteAtMaxTokens() {
        // given the shipped contract and providers, and a short text
        Contract contract = Contracts.load(Path.of("../config/contracts")).find("sentiment").orElseThrow();
        Providers providers = Providers.load(Path.of("../config/providers.yaml"), Map.of());
        JsonNode variables = Json.parse("{\"text\":\"I loved it\"}");

        // when its bound is taken over the target alone and over target plus fallback
        BigDecimal primary = JobCost.bound(contract, variables, List.of(providers.find("primary").orElseThrow()));
        BigDecimal both = JobCost.bound(contract, variables, List.of(providers.find("primary").orElseThrow(),
                providers.find("backup").orElseThrow()));

        // then each is the input bound and max_tokens at the providers' prices, summed
        long input = JobCost.inputBound(contract, variables);
        assertTrue(input > JobCost.FRAMING_TOKENS, "the prompt's bytes count");
        assertEquals(providers.find("primary").orElseThrow().prices().bound(input, contract.maxTokens()), primary);
        assertEquals(primary.add(providers.find("backup").orElseThrow().prices().bound(input, contract.maxTokens())),
                both);
    }
}
