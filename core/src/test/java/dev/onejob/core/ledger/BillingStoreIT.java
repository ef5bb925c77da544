package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.billing.Usage;
import dev.onejob.core.json.Json;
import dev.onejob.core.outbox.OutboxStore;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What providers billed, recorded against real PostgreSQL: once per attempt whatever the redeliveries, only for claims
 * that hold, summed per owner and day in the same statement, and carried by the race-audit record of a lost race.
 */
class BillingStoreIT {
    private static final JsonNode RESULT = Json.parse("{\"sentiment\":\"positive\"}");
    private final LedgerFixture ledger = new LedgerFixture();
    private final BillingStore billing = new BillingStore(ledger.database);
    private final LocalDate today = LocalDate.now(ZoneOffset.UTC);

    private Attempt started(String owner) {
        Attempt attempt = ledger.submitted(owner).firstAttempt();
        ledger.store.starts().start(attempt.id(), LedgerFixture.SOFT_TIMEOUT);
        return attempt;
    }

    private static BilledCall call(Attempt attempt, long in, long out, String cost) {
        return new BilledCall(attempt.id(), attempt.jobId(), attempt.provider(), "gpt-4o-mini",
                new Usage(in, out, 0), cost == null ? null : new BigDecimal(cost));
    }

    @Test
    void aRedeliveredCallIsBilledOnce() {
        // given an owner's started attempt
        String owner = "bill-" + UUID.randomUUID();
        Attempt attempt = started(owner);

        // when its billing arrives three times, twice in one poll
        List<UUID> first = billing.recordAll(List.of(call(attempt, 1000, 50, "0.00018"),
                call(attempt, 1000, 50, "0.00018")));
        List<UUID> again = billing.recordAll(List.of(call(attempt, 1000, 50, "0.00018")));

        // then the attempt and the owner's day count it once
        assertEquals(List.of(attempt.id()), first);
        assertEquals(List.of(), again);
        Attempt billed = ledger.store.lookups().attempt(attempt.id()).orElseThrow();
        assertEquals(new Usage(1000, 50, 0), billed.usage());
        assertEquals(0, new BigDecimal("0.00018").compareTo(billed.costUsd()));
        BillingStore.UsageRow total = billing.usage(owner, today, today.plusDays(1), List.of()).get(0);
        assertEquals(1, total.calls());
        assertEquals(1000, total.inputTokens());
        assertEquals(50, total.outputTokens());
        assertEquals(0, new BigDecimal("0.00018").compareTo(total.costUsd()));
    }

    @Test
    void aCallWhoseClaimsDoNotHoldBillsNothing() {
        // given a started attempt, an attempt never started, and a billing naming another job or provider
        String owner = "bill-" + UUID.randomUUID();
        Attempt attempt = started(owner);
        Attempt pending = ledger.submitted(owner).firstAttempt();
        BilledCall otherJob = new BilledCall(attempt.id(), pending.jobId(), attempt.provider(), "m",
                new Usage(1, 1, 0), BigDecimal.ONE);
        BilledCall otherProvider = new BilledCall(attempt.id(), attempt.jobId(), "backup", "m", new Usage(1, 1, 0),
                BigDecimal.ONE);

        // when they are recorded
        List<UUID> billed = billing.recordAll(List.of(otherJob, otherProvider, call(pending, 5, 5, "1"),
                new BilledCall(UUID.randomUUID(), attempt.jobId(), "primary", "m", new Usage(1, 1, 0), null)));

        // then nothing was billed, and the owner's report is empty
        assertEquals(List.of(), billed);
        assertNull(ledger.store.lookups().attempt(attempt.id()).orElseThrow().usage());
        assertEquals(0, billing.usage(owner, today, today.plusDays(1), List.of()).get(0).calls());
    }

    @Test
    void usageIsReportedPerOwnerProviderAndDayAndUnpricedCallsAreCounted() {
        // given two owners' calls, one of them on a provider without prices
        String alice = "bill-a-" + UUID.randomUUID();
        String bob = "bill-b-" + UUID.randomUUID();
        billing.recordAll(List.of(call(started(alice), 100, 10, "0.001"), call(started(alice), 200, 20, "0.002"),
                call(started(bob), 300, 30, null)));

        // when the report is grouped by owner (as an operator sees it) and asked for by one owner
        List<BillingStore.UsageRow> byOwner = billing.usage(null, today, today.plusDays(1),
                List.of(BillingStore.GroupBy.OWNER)).stream()
                .filter(r -> r.group().get(BillingStore.GroupBy.OWNER).equals(alice)
                        || r.group().get(BillingStore.GroupBy.OWNER).equals(bob)).toList();
        List<BillingStore.UsageRow> aliceByDay = billing.usage(alice, today, today.plusDays(1),
                List.of(BillingStore.GroupBy.DAY, BillingStore.GroupBy.PROVIDER));

        // then each owner's sums are their own, and bob's unpriced call is counted as such
        assertEquals(2, byOwner.size());
        BillingStore.UsageRow a = byOwner.stream().filter(r -> r.group().get(BillingStore.GroupBy.OWNER)
                .equals(alice)).findFirst().orElseThrow();
        BillingStore.UsageRow b = byOwner.stream().filter(r -> r.group().get(BillingStore.GroupBy.OWNER)
                .equals(bob)).findFirst().orElseThrow();
        assertEquals(2, a.calls());
        assertEquals(300, a.inputTokens());
        assertEquals(0, new BigDecimal("0.003").compareTo(a.costUsd()));
        assertEquals(0, a.unpricedCalls());
        assertEquals(1, b.unpricedCalls());
        assertEquals(0, BigDecimal.ZERO.compareTo(b.costUsd()));
        assertEquals(1, aliceByDay.size());
        assertEquals(Map.of(BillingStore.GroupBy.DAY, today.toString(), BillingStore.GroupBy.PROVIDER, "primary"),
                aliceByDay.get(0).group());
        assertEquals(0, billing.usage(alice, today.minusDays(3), today, List.of()).get(0).calls());
    }

    @Test
    void theRaceAuditOfALostRaceCarriesTheLosersCost() {
        // given a job whose primary attempt was cancelled out of band and whose backup won
        Attempt[] ab = ledger.cancelledThenFallback();
        billing.recordAll(List.of(call(ab[1], 400, 40, "0.0072")));
        ledger.store.completions().complete(ab[1].jobId(), ab[1].id(), RESULT, "req-b");

        // when the late primary answer arrives, billed, and loses
        billing.recordAll(List.of(call(ab[0], 400, 40, "0.000084")));
        ledger.store.completions().complete(ab[0].jobId(), ab[0].id(), RESULT, "req-a");

        // then its race-audit record says what each side cost
        List<Map.Entry<String, JsonNode>> audits = ledger.database.inTransaction(connection ->
                OutboxStore.eventsFor(connection, "race-audit", ab[0].jobId().toString()));
        assertEquals(1, audits.size());
        JsonNode audit = audits.get(0).getValue();
        assertEquals(0, new BigDecimal("0.000084").compareTo(audit.path("losing_attempt").path("cost_usd")
                .decimalValue()));
        assertEquals(0, new BigDecimal("0.0072").compareTo(audit.path("winning_attempt").path("cost_usd")
                .decimalValue()));
    }
}
