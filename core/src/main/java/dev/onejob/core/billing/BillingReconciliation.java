package dev.onejob.core.billing;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Compares a provider's bill with onejob's ledger, where double billing is actually discovered. Each charge is matched
 * to an attempt by the idempotency key onejob sent (the attempt id), else by the provider's request id. Pure: the
 * charges come from the provider's export ({@link ProviderCharge}), the attempts from the ledger; used by
 * {@code onejob billing reconcile} and by the chaos run's checker, so both judge by the same rules.
 *
 * <p>Findings: a charge for one of onejob's certification calls is counted apart ({@link CallKeys}); a charge no
 * attempt of the provider explains ({@link Report#billedWithoutAttempt}); an attempt charged
 * more than once ({@link Report#billedMoreThanOnce}); an attempt whose recorded tokens or cost differ from the charge
 * ({@link Report#costMismatches}); an attempt charged whose usage onejob never learnt (its call timed out or its
 * answer was lost: {@link Report#chargedButUnrecorded}, expected, not an error); an attempt whose usage onejob
 * recorded and the provider did not charge ({@link Report#recordedButNotCharged}).
 */
public final class BillingReconciliation {
    private BillingReconciliation() {
    }

    /** An attempt as the ledger has it: its usage and cost are null until a reply reported them. */
    public record LedgerAttempt(UUID attemptId, UUID jobId, String providerRequestId, Usage usage, BigDecimal costUsd) {
    }

    /** An attempt and the charges that name it. */
    public record Match(LedgerAttempt attempt, List<ProviderCharge> charges) {
        public BigDecimal charged() {
            return charges.stream().map(ProviderCharge::costUsd).reduce(BigDecimal.ZERO, BigDecimal::add);
        }
    }

    /**
     * What the comparison found, with the totals of both sides. {@code certificationCalls} are the charges for
     * onejob's own certification calls ({@link CallKeys#isCertification}): billed, in the provider's total, no
     * attempt's.
     */
    public record Report(int charges, int attempts, BigDecimal providerTotal, BigDecimal ledgerTotal,
                         List<ProviderCharge> certificationCalls,
                         List<ProviderCharge> billedWithoutAttempt, List<Match> billedMoreThanOnce,
                         List<Match> costMismatches, List<Match> chargedButUnrecorded,
                         List<LedgerAttempt> recordedButNotCharged) {

        /** Whether the provider billed anything onejob cannot account for, or billed an attempt twice. */
        public boolean doubleOrUnexplainedBilling() {
            return !billedWithoutAttempt.isEmpty() || !billedMoreThanOnce.isEmpty();
        }

        /** Whether the two sides agree call for call and cent for cent (unrecorded usage aside). */
        public boolean agrees() {
            return !doubleOrUnexplainedBilling() && costMismatches.isEmpty() && recordedButNotCharged.isEmpty();
        }

        /** The provider's total less the ledger's: what onejob would under-report if it trusted its own record. */
        public BigDecimal difference() {
            return providerTotal.subtract(ledgerTotal);
        }
    }

    public static Report reconcile(List<ProviderCharge> charges, List<LedgerAttempt> attempts) {
        Map<String, LedgerAttempt> byKey = new HashMap<>();
        Map<String, LedgerAttempt> byRequestId = new HashMap<>();
        for (LedgerAttempt attempt : attempts) {
            byKey.put(attempt.attemptId().toString(), attempt);
            if (attempt.providerRequestId() != null) {
                byRequestId.put(attempt.providerRequestId(), attempt);
            }
        }
        Map<UUID, List<ProviderCharge>> chargesOf = new LinkedHashMap<>();
        List<ProviderCharge> unexplained = new ArrayList<>();
        List<ProviderCharge> certifications = new ArrayList<>();
        BigDecimal providerTotal = BigDecimal.ZERO;
        for (ProviderCharge charge : charges) {
            providerTotal = providerTotal.add(charge.costUsd());
            LedgerAttempt attempt = charge.idempotencyKey() == null ? null : byKey.get(charge.idempotencyKey());
            if (attempt == null && charge.requestId() != null) {
                attempt = byRequestId.get(charge.requestId());
            }
            if (attempt == null && CallKeys.isCertification(charge.idempotencyKey())) {
                certifications.add(charge);
            } else if (attempt == null) {
                unexplained.add(charge);
            } else {
                chargesOf.computeIfAbsent(attempt.attemptId(), id -> new ArrayList<>()).add(charge);
            }
        }
        List<Match> twice = new ArrayList<>();
        List<Match> mismatched = new ArrayList<>();
        List<Match> unrecorded = new ArrayList<>();
        List<LedgerAttempt> uncharged = new ArrayList<>();
        BigDecimal ledgerTotal = BigDecimal.ZERO;
        for (LedgerAttempt attempt : attempts) {
            if (attempt.costUsd() != null) {
                ledgerTotal = ledgerTotal.add(attempt.costUsd());
            }
            List<ProviderCharge> its = chargesOf.get(attempt.attemptId());
            if (its == null) {
                if (attempt.usage() != null) {
                    uncharged.add(attempt);
                }
                continue;
            }
            Match match = new Match(attempt, List.copyOf(its));
            if (its.size() > 1) {
                twice.add(match);
            } else if (attempt.usage() == null) {
                unrecorded.add(match);
            } else if (!attempt.usage().equals(its.get(0).usage()) || attempt.costUsd() != null
                    && attempt.costUsd().compareTo(its.get(0).costUsd()) != 0) {
                mismatched.add(match);
            }
        }
        return new Report(charges.size(), attempts.size(), providerTotal, ledgerTotal, List.copyOf(certifications),
                List.copyOf(unexplained),
                List.copyOf(twice), List.copyOf(mismatched), List.copyOf(unrecorded), List.copyOf(uncharged));
    }
}
