package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.billing.OwnerLimits;
import dev.onejob.core.billing.Usage;
import dev.onejob.testing.StartGate;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * Owner limits where jobs are created, against real PostgreSQL: a spend cap and a live-attempt limit refuse the job
 * that would go over and nothing else, a replay is never refused, a finished job gives its reservation back, what
 * was billed counts against the cap, and owners racing their own limit cannot overshoot it together.
 */
class OwnerBudgetsIT {
    private static final BigDecimal RESERVE = new BigDecimal("0.004");
    private final LedgerFixture ledger = new LedgerFixture();
    private final LocalDate today = LocalDate.now(ZoneOffset.UTC);

    private NewJob job(String owner, String key, OwnerLimits limits) {
        NewJob plain = LedgerFixture.newJob(owner, key, "budgeted");
        return new NewJob(plain.ownerId(), plain.idempotencyKey(), plain.request(), plain.contract(),
                plain.targetProvider(), plain.fallbackProviders(),
                new NewJob.Budget(limits, limits.period().start(today), RESERVE));
    }

    private static String owner() {
        return "budget-" + UUID.randomUUID();
    }

    @Test
    void theJobThatWouldPassTheSpendCapIsRefusedAndAReplayIsNot() {
        // given a cap of 0.01 USD a day and jobs that reserve 0.004 each
        String owner = owner();
        OwnerLimits cap = new OwnerLimits(new BigDecimal("0.01"), OwnerLimits.Period.DAY, null);

        // when three come in one batch, then the first key again
        List<SubmitOutcome> batch = ledger.store.submissions().submitBatch(List.of(job(owner, "k1", cap), job(owner, "k2", cap),
                job(owner, "k3", cap)));
        SubmitOutcome replay = ledger.store.submissions().submit(job(owner, "k1", cap));

        // then two were created, the third refused with the figures, and nothing of it was written
        assertInstanceOf(SubmitOutcome.Created.class, batch.get(0));
        assertInstanceOf(SubmitOutcome.Created.class, batch.get(1));
        SubmitOutcome.OverLimit over = assertInstanceOf(SubmitOutcome.OverLimit.class, batch.get(2));
        assertEquals(SubmitOutcome.OverLimit.Limit.SPEND_CAP, over.limit());
        assertTrue(over.reason().contains("0.004") && over.reason().contains("0.008") && over.reason().contains("0.01"),
                over.reason());
        assertEquals(0, ledger.count("SELECT count(*) FROM jobs WHERE owner_id = ? AND idempotency_key = 'k3'",
                owner));
        assertInstanceOf(SubmitOutcome.Replayed.class, replay);
        assertEquals(2, ledger.count("SELECT count(*) FROM job_reservations WHERE owner_id = ?", owner));
    }

    @Test
    void aFinishedJobGivesItsReservationBackAndWhatWasBilledCounts() {
        // given a cap that holds two reservations, both taken
        String owner = owner();
        OwnerLimits cap = new OwnerLimits(new BigDecimal("0.008"), OwnerLimits.Period.MONTH, null);
        SubmitOutcome.Created first = assertInstanceOf(SubmitOutcome.Created.class,
                ledger.store.submissions().submit(job(owner, "k1", cap)));
        assertInstanceOf(SubmitOutcome.Created.class, ledger.store.submissions().submit(job(owner, "k2", cap)));
        assertInstanceOf(SubmitOutcome.OverLimit.class, ledger.store.submissions().submit(job(owner, "k3", cap)));

        // when the first job is cancelled, after its call was billed 0.003
        Attempt attempt = first.firstAttempt();
        ledger.store.starts().start(attempt.id(), LedgerFixture.SOFT_TIMEOUT);
        new BillingStore(ledger.database).recordAll(List.of(new BilledCall(attempt.id(), attempt.jobId(),
                attempt.provider(), "m", new Usage(10, 10, 0), new BigDecimal("0.003"))));
        ledger.store.interventions().cancelJob(attempt.jobId(), "changed my mind");

        // then its reservation is gone, but what it cost stays spent: 0.003 + 0.004 leaves room for no 0.004 more
        assertEquals(1, ledger.count("SELECT count(*) FROM job_reservations WHERE owner_id = ?", owner));
        SubmitOutcome.OverLimit over = assertInstanceOf(SubmitOutcome.OverLimit.class,
                ledger.store.submissions().submit(job(owner, "k3", cap)));
        assertTrue(over.reason().contains("0.007"), over.reason());
        OwnerLimits wider = new OwnerLimits(new BigDecimal("0.011"), OwnerLimits.Period.MONTH, null);
        assertInstanceOf(SubmitOutcome.Created.class, ledger.store.submissions().submit(job(owner, "k3", wider)));
    }

    @Test
    void aKeySentTwiceInABatchThatIsRefusedGetsTheSameAnswerTwice() {
        String owner = owner();
        OwnerLimits none = new OwnerLimits(BigDecimal.ZERO, OwnerLimits.Period.DAY, null);

        List<SubmitOutcome> batch = ledger.store.submissions().submitBatch(List.of(job(owner, "twice", none),
                job(owner, "twice", none)));

        assertInstanceOf(SubmitOutcome.OverLimit.class, batch.get(0));
        assertEquals(batch.get(0), batch.get(1));
        assertEquals(0, ledger.count("SELECT count(*) FROM jobs WHERE owner_id = ?", owner));
    }

    @Test
    void theLiveAttemptLimitCountsUnfinishedJobs() {
        String owner = owner();
        OwnerLimits two = new OwnerLimits(null, OwnerLimits.Period.MONTH, 2);
        SubmitOutcome.Created first = assertInstanceOf(SubmitOutcome.Created.class,
                ledger.store.submissions().submit(job(owner, "k1", two)));
        assertInstanceOf(SubmitOutcome.Created.class, ledger.store.submissions().submit(job(owner, "k2", two)));
        SubmitOutcome.OverLimit over = assertInstanceOf(SubmitOutcome.OverLimit.class,
                ledger.store.submissions().submit(job(owner, "k3", two)));
        assertEquals(SubmitOutcome.OverLimit.Limit.LIVE_ATTEMPTS, over.limit());

        ledger.store.interventions().cancelJob(first.job().id(), "done with it");

        assertInstanceOf(SubmitOutcome.Created.class, ledger.store.submissions().submit(job(owner, "k3", two)));
    }

    @Test
    void concurrentSubmissionsCannotOvershootTheCapTogether() throws Exception {
        // given a cap that holds exactly five reservations, and twelve different keys sent at once
        String owner = owner();
        OwnerLimits five = new OwnerLimits(new BigDecimal("0.02"), OwnerLimits.Period.DAY, null);
        List<Callable<SubmitOutcome>> tasks = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String key = "race-" + i;
            tasks.add(() -> ledger.store.submissions().submit(job(owner, key, five)));
        }
        List<SubmitOutcome> outcomes = StartGate.race(tasks);

        // then five were created and seven refused, and the ledger holds five
        assertEquals(5, outcomes.stream().filter(SubmitOutcome.Created.class::isInstance).count());
        assertEquals(7, outcomes.stream().filter(SubmitOutcome.OverLimit.class::isInstance).count());
        assertEquals(5, ledger.count("SELECT count(*) FROM jobs WHERE owner_id = ?", owner));
    }

    @Test
    void anOwnerWithoutLimitsReservesNothing() {
        String owner = owner();
        SubmitOutcome.Created created = assertInstanceOf(SubmitOutcome.Created.class,
                ledger.store.submissions().submit(job(owner, "k1", OwnerLimits.NONE)));
        assertEquals(0, ledger.count("SELECT count(*) FROM job_reservations WHERE owner_id = ?", owner));
        assertEquals(0, ledger.count("SELECT count(*) FROM jobs WHERE id = ? AND reserved_usd IS NOT NULL",
                created.job().id()));
    }
}
