package dev.onejob.chaos.check;

import dev.onejob.chaos.check.RunRecord.AttemptRow;
import dev.onejob.chaos.check.RunRecord.ProviderCall;
import dev.onejob.core.billing.BillingReconciliation;
import dev.onejob.core.billing.BillingReconciliation.LedgerAttempt;
import dev.onejob.core.billing.BillingReconciliation.Match;
import dev.onejob.core.billing.BillingReconciliation.Report;
import dev.onejob.core.billing.ProviderCharge;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Billing against the provider's side of the wire: each simulator's bill (its billed ledger entries, as its
 * {@code /_sim/usage-export} lists them) reconciled with the ledger's attempts on that provider by the same rules as
 * {@code onejob billing reconcile} ({@link BillingReconciliation}). Finds {@link AnomalyKind#BILLED_WITHOUT_ATTEMPT},
 * {@link AnomalyKind#BILLED_TWICE}, {@link AnomalyKind#BILLED_COST_MISMATCH} and
 * {@link AnomalyKind#RECORDED_NOT_BILLED}; a charge whose usage onejob never learnt (a call killed, timed out or
 * answered past its hard deadline) is expected and only counted.
 */
final class BillingChecks {
    static final String BILLED_CALLS = "billed calls (provider's bill)";
    static final String BILLED_MICRO_USD = "billed cost, provider's bill (micro-USD)";
    static final String UNRECORDED_CHARGES = "charges whose usage onejob never learnt";
    static final String CERTIFICATION_CHARGES = "charges for certification calls";

    private BillingChecks() {
    }

    static void check(RunRecord run, CheckReport.Builder report) {
        long calls = 0;
        long unrecorded = 0;
        long certifications = 0;
        BigDecimal billed = BigDecimal.ZERO;
        TreeSet<String> simulators = new TreeSet<>();
        run.calls().forEach(call -> simulators.add(call.simulator()));
        for (String simulator : simulators) {
            Report bill = reconcile(run, simulator);
            calls += bill.charges();
            unrecorded += bill.chargedButUnrecorded().size();
            certifications += bill.certificationCalls().size();
            billed = billed.add(bill.providerTotal());
            for (ProviderCharge charge : bill.billedWithoutAttempt()) {
                report.anomaly(AnomalyKind.BILLED_WITHOUT_ATTEMPT, simulator + " request " + charge.requestId(),
                        "charged " + charge.costUsd().toPlainString() + " USD for key " + charge.idempotencyKey()
                                + ", which is no started attempt on " + simulator);
            }
            for (Match match : bill.billedMoreThanOnce()) {
                report.anomaly(AnomalyKind.BILLED_TWICE, "attempt " + match.attempt().attemptId(),
                        match.charges().size() + " charges on " + simulator + "'s bill, "
                                + match.charged().toPlainString() + " USD");
            }
            for (Match match : bill.costMismatches()) {
                ProviderCharge charge = match.charges().get(0);
                report.anomaly(AnomalyKind.BILLED_COST_MISMATCH, "attempt " + match.attempt().attemptId(),
                        "ledger " + match.attempt().usage() + " " + match.attempt().costUsd() + " USD, " + simulator
                                + " charged " + charge.usage() + " " + charge.costUsd().toPlainString() + " USD");
            }
            for (LedgerAttempt attempt : bill.recordedButNotCharged()) {
                report.anomaly(AnomalyKind.RECORDED_NOT_BILLED, "attempt " + attempt.attemptId(),
                        "the ledger recorded " + attempt.usage() + " on " + simulator + ", whose bill has no charge");
            }
        }
        report.figure(BILLED_CALLS, calls);
        report.figure(BILLED_MICRO_USD, billed.movePointRight(6).setScale(0, RoundingMode.HALF_UP)
                .longValueExact());
        report.figure(UNRECORDED_CHARGES, unrecorded);
        report.figure(CERTIFICATION_CHARGES, certifications);
    }

    private static Report reconcile(RunRecord run, String simulator) {
        List<ProviderCharge> charges = new ArrayList<>();
        int line = 0;
        for (ProviderCall call : run.calls()) {
            if (call.simulator().equals(simulator)) {
                line++;
                if (call.charged()) {
                    charges.add(new ProviderCharge(line, call.requestId(), call.idempotencyKey(), null, call.usage(),
                            call.costUsd(), call.receivedAt()));
                }
            }
        }
        List<LedgerAttempt> attempts = new ArrayList<>();
        for (AttemptRow attempt : run.attempts()) {
            if (attempt.provider().equals(simulator) && attempt.startedAt() != null) {
                attempts.add(new LedgerAttempt(UUID.fromString(attempt.id()), UUID.fromString(attempt.jobId()),
                        attempt.providerRequestId(), attempt.usage(), attempt.costUsd()));
            }
        }
        return BillingReconciliation.reconcile(charges, attempts);
    }
}
