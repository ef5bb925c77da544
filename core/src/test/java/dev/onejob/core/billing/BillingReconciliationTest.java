package dev.onejob.core.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.billing.BillingReconciliation.LedgerAttempt;
import dev.onejob.core.billing.BillingReconciliation.Report;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A provider's bill against the ledger: each finding, and agreement, from the smallest case that shows it. */
class BillingReconciliationTest {
    private static final Usage USAGE = new Usage(100, 10, 0);
    private static final BigDecimal COST = new BigDecimal("0.000021");

    private static LedgerAttempt attempt(Usage usage, BigDecimal cost) {
        return new LedgerAttempt(UUID.randomUUID(), UUID.randomUUID(), "req_" + UUID.randomUUID(), usage, cost);
    }

    private static ProviderCharge charge(String key, String requestId, Usage usage, BigDecimal cost) {
        return new ProviderCharge(1, requestId, key, "gpt-4o-mini", usage, cost, Instant.now());
    }

    @Test
    void oneChargePerAttemptAtTheRecordedCostAgrees() {
        LedgerAttempt a = attempt(USAGE, COST);
        LedgerAttempt b = attempt(USAGE, COST);
        // b's charge names it by the provider's request id only (an export without idempotency keys)
        Report report = BillingReconciliation.reconcile(List.of(charge(a.attemptId().toString(), null, USAGE, COST),
                charge(null, b.providerRequestId(), USAGE, COST)), List.of(a, b));
        assertTrue(report.agrees(), report.toString());
        assertEquals(0, report.difference().signum());
        assertEquals(0, new BigDecimal("0.000042").compareTo(report.providerTotal()));
    }

    @Test
    void anAttemptChargedTwiceIsDoubleBilling() {
        LedgerAttempt a = attempt(USAGE, COST);
        Report report = BillingReconciliation.reconcile(List.of(charge(a.attemptId().toString(), "r1", USAGE, COST),
                charge(a.attemptId().toString(), "r2", USAGE, COST)), List.of(a));
        assertTrue(report.doubleOrUnexplainedBilling());
        assertEquals(1, report.billedMoreThanOnce().size());
        assertEquals(0, new BigDecimal("0.000042").compareTo(report.billedMoreThanOnce().get(0).charged()));
        assertEquals(0, COST.compareTo(report.difference()));
    }

    @Test
    void aChargeNoAttemptExplainsIsUnexplainedBilling() {
        Report report = BillingReconciliation.reconcile(List.of(charge(UUID.randomUUID().toString(), "r9", USAGE,
                COST)), List.of(attempt(null, null)));
        assertEquals(1, report.billedWithoutAttempt().size());
        assertFalse(report.agrees());
    }

    @Test
    void differentTokensOrCostAreAMismatchAndUnrecordedUsageIsOnlyANote() {
        LedgerAttempt recorded = attempt(USAGE, COST);
        LedgerAttempt timedOut = attempt(null, null);
        LedgerAttempt notCharged = attempt(USAGE, COST);
        Report report = BillingReconciliation.reconcile(List.of(
                charge(recorded.attemptId().toString(), "r1", new Usage(100, 11, 0), new BigDecimal("0.0000216")),
                charge(timedOut.attemptId().toString(), "r2", USAGE, COST)), List.of(recorded, timedOut, notCharged));
        assertEquals(1, report.costMismatches().size());
        assertEquals(1, report.chargedButUnrecorded().size());
        assertEquals(List.of(notCharged), report.recordedButNotCharged());
        assertFalse(report.doubleOrUnexplainedBilling());
        assertFalse(report.agrees());
    }

    @Test
    void aCertificationCallIsBilledButIsNoAttemptAndNoStranger() {
        Report report = BillingReconciliation.reconcile(List.of(charge(CallKeys.certification().toString(), "r1",
                USAGE, COST)), List.of());
        assertTrue(report.agrees(), report.toString());
        assertEquals(1, report.certificationCalls().size());
        assertEquals(0, COST.compareTo(report.providerTotal()));
        assertFalse(CallKeys.isCertification(UUID.randomUUID().toString()));
        assertFalse(CallKeys.isCertification("not-a-uuid"));
    }

    @Test
    void anExportLineThatIsNotAChargeIsRefusedWithItsNumber() throws IOException {
        String export = """
                {"request_id":"r1","idempotency_key":null,"model":"m","input_tokens":5,"output_tokens":1,"cached_input_tokens":0,"cost_usd":0.0000015,"billed_at":"2026-12-05T10:00:00Z"}

                {"request_id":"r2","model":"m","input_tokens":5,"output_tokens":1,"cached_input_tokens":0,"cost_usd":"free"}
                """;
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> ProviderCharge.read(new BufferedReader(new StringReader(export))));
        assertTrue(refused.getMessage().startsWith("line 3: "), refused.getMessage());
        assertEquals(1, ProviderCharge.read(new BufferedReader(new StringReader(export.lines().findFirst()
                .orElseThrow()))).size());
    }
}
