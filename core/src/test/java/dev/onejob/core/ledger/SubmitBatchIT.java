package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.onejob.testing.StartGate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * A batch submitted with one statement per table answers each job as if it were submitted alone, in its order:
 * created, replayed (the key exists, or came earlier in the same batch, with the same payload) or conflict (another
 * payload); concurrent batches over the same keys neither deadlock nor double a job.
 */
class SubmitBatchIT {
    private final LedgerFixture ledger = new LedgerFixture();

    @Test
    void eachJobOfABatchGetsTheAnswerItWouldGetAlone() {
        // given a key that exists already, and a batch mixing it with new keys and keys repeated inside the batch
        String existing = LedgerFixture.freshKey();
        SubmitOutcome.Created before = assertInstanceOf(SubmitOutcome.Created.class,
                ledger.store.submissions().submit(LedgerFixture.newJob("owner-b", existing, "first")));
        String fresh = LedgerFixture.freshKey();
        String twice = LedgerFixture.freshKey();
        String clash = LedgerFixture.freshKey();
        List<NewJob> batch = List.of(
                LedgerFixture.newJob("owner-b", twice, "same"),
                LedgerFixture.newJob("owner-b", existing, "first"),
                LedgerFixture.newJob("owner-b", fresh, "new"),
                LedgerFixture.newJob("owner-b", clash, "one payload"),
                LedgerFixture.newJob("owner-b", twice, "same"),
                LedgerFixture.newJob("owner-b", existing, "another payload"),
                LedgerFixture.newJob("owner-b", clash, "another payload"),
                LedgerFixture.newJob("owner-c", existing, "first"));

        // when it is submitted
        List<SubmitOutcome> outcomes = ledger.store.submissions().submitBatch(batch);

        // then, position by position
        UUID twiceJob = assertInstanceOf(SubmitOutcome.Created.class, outcomes.get(0)).job().id();
        assertEquals(before.job().id(), assertInstanceOf(SubmitOutcome.Replayed.class, outcomes.get(1)).job().id());
        SubmitOutcome.Created freshJob = assertInstanceOf(SubmitOutcome.Created.class, outcomes.get(2));
        UUID clashJob = assertInstanceOf(SubmitOutcome.Created.class, outcomes.get(3)).job().id();
        assertEquals(twiceJob, assertInstanceOf(SubmitOutcome.Replayed.class, outcomes.get(4)).job().id());
        assertEquals(before.job().id(), assertInstanceOf(SubmitOutcome.Conflict.class, outcomes.get(5))
                .existingJobId());
        assertEquals(clashJob, assertInstanceOf(SubmitOutcome.Conflict.class, outcomes.get(6)).existingJobId());
        UUID otherOwner = assertInstanceOf(SubmitOutcome.Created.class, outcomes.get(7)).job().id();

        // and each created job has one first attempt, on its target, whose command is queued once
        assertEquals(freshJob.job().id(), freshJob.firstAttempt().jobId());
        assertEquals("primary", freshJob.firstAttempt().provider());
        assertEquals(AttemptStatus.PENDING, freshJob.firstAttempt().status());
        for (UUID job : List.of(twiceJob, freshJob.job().id(), clashJob, otherOwner)) {
            assertEquals(1, ledger.count("SELECT count(*) FROM attempts WHERE job_id = ?", job));
            assertEquals(1, ledger.outboxEvents("attempt-commands", job));
        }
        assertEquals(List.of("backup"), ledger.store.lookups().job(freshJob.job().id()).orElseThrow().fallbackProviders());
        assertEquals(1, ledger.count("SELECT count(*) FROM jobs WHERE owner_id = 'owner-b' AND idempotency_key = ?",
                existing));
    }

    @Test
    void concurrentBatchesOverTheSameKeysCreateEachJobOnce() {
        for (int round = 0; round < 20; round++) {
            // given 8 batches over the same 50 keys, each in its own order
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                keys.add(LedgerFixture.freshKey());
            }
            List<Callable<List<SubmitOutcome>>> batches = new ArrayList<>();
            List<List<String>> orders = new ArrayList<>();
            for (int b = 0; b < 8; b++) {
                List<String> order = new ArrayList<>(keys);
                Collections.shuffle(order, new Random(round * 31L + b));
                orders.add(order);
                batches.add(() -> ledger.store.submissions().submitBatch(order.stream()
                        .map(key -> LedgerFixture.newJob("owner-d", key, "same for all")).toList()));
            }

            // when they run together
            List<List<SubmitOutcome>> results = StartGate.race(batches);

            // then each key has one job, created by exactly one batch and replayed by the other seven
            Map<String, UUID> jobOfKey = new HashMap<>();
            Map<String, Integer> createdOfKey = new HashMap<>();
            for (int b = 0; b < results.size(); b++) {
                for (int i = 0; i < keys.size(); i++) {
                    SubmitOutcome outcome = results.get(b).get(i);
                    String key = orders.get(b).get(i);
                    UUID job = outcome instanceof SubmitOutcome.Created c ? c.job().id()
                            : assertInstanceOf(SubmitOutcome.Replayed.class, outcome).job().id();
                    assertEquals(jobOfKey.computeIfAbsent(key, k -> job), job, key);
                    if (outcome instanceof SubmitOutcome.Created) {
                        createdOfKey.merge(key, 1, Integer::sum);
                    }
                }
            }
            for (String key : keys) {
                assertEquals(1, createdOfKey.getOrDefault(key, 0), "round " + round + ", " + key);
                assertEquals(1, ledger.count("SELECT count(*) FROM jobs WHERE owner_id = 'owner-d'"
                        + " AND idempotency_key = ?", key));
                assertEquals(1, ledger.count("SELECT count(*) FROM attempts WHERE job_id = ?", jobOfKey.get(key)));
            }
        }
    }
}
