package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.onejob.testing.StartGate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/** The worker's set-based start: one statement for a poll, each attempt answered as if started alone. */
class StartAllIT {
    private static final Duration SOFT = Duration.ofSeconds(10);
    private static final Duration ABANDON = Duration.ofSeconds(40);
    private final LedgerFixture ledger = new LedgerFixture();

    private static AttemptStarts.Start start(Attempt attempt, UUID token) {
        return new AttemptStarts.Start(attempt.id(), SOFT, ABANDON, token);
    }

    @Test
    void aPollOfStartsAnswersEachAttemptAsIfAlone() {
        // given a PENDING attempt, one STARTING with our token (a start whose acknowledgement was lost), one
        // STARTING with another worker's token, one UNKNOWN, and an id the ledger does not know
        Attempt pending = ledger.submitted("owner-a").firstAttempt();
        Attempt ours = ledger.submitted("owner-a").firstAttempt();
        Attempt foreign = ledger.submitted("owner-b").firstAttempt();
        Attempt unknown = ledger.submitted("owner-b").firstAttempt();
        UUID ourToken = UUID.randomUUID();
        ledger.store.starts().start(ours.id(), SOFT, ABANDON, ourToken);
        ledger.store.starts().start(foreign.id(), SOFT, ABANDON, UUID.randomUUID());
        ledger.store.starts().start(unknown.id(), SOFT, ABANDON, UUID.randomUUID());
        ledger.store.starts().markUnknown(unknown.id());
        UUID missing = UUID.randomUUID();

        // when one poll starts them all
        List<TransitionOutcome> outcomes = ledger.store.starts().startAll(List.of(start(pending, UUID.randomUUID()),
                start(ours, ourToken), start(foreign, UUID.randomUUID()), start(unknown, UUID.randomUUID()),
                new AttemptStarts.Start(missing, SOFT, ABANDON, UUID.randomUUID())));

        // then in the order given: started, ours, someone else's, UNKNOWN, no such attempt
        assertInstanceOf(TransitionOutcome.Applied.class, outcomes.get(0));
        assertInstanceOf(TransitionOutcome.Applied.class, outcomes.get(1));
        assertEquals("STARTING", assertInstanceOf(TransitionOutcome.NotApplied.class, outcomes.get(2)).current());
        assertEquals("UNKNOWN", assertInstanceOf(TransitionOutcome.NotApplied.class, outcomes.get(3)).current());
        assertEquals(null, assertInstanceOf(TransitionOutcome.NotApplied.class, outcomes.get(4)).current());
        // and the started one is STARTING with its deadlines, its job RUNNING, in the same transaction
        assertEquals(1, ledger.count("SELECT count(*) FROM attempts WHERE id = ? AND status = 'STARTING'"
                + " AND soft_deadline BETWEEN started_at + interval '9 seconds' AND started_at + interval '11 seconds'"
                + " AND abandon_after BETWEEN started_at + interval '39 seconds' AND started_at + interval '41 seconds'",
                pending.id()));
        assertEquals(1, ledger.count("SELECT count(*) FROM jobs WHERE id = ? AND status = 'RUNNING'",
                pending.jobId()));
        assertEquals(1, ledger.count("SELECT count(*) FROM jobs WHERE id = ? AND status = 'UNKNOWN'",
                unknown.jobId()));
    }

    @Test
    void theSameAttemptTwiceInOneCallIsRefusedBeforeAnythingIsWritten() {
        Attempt pending = ledger.submitted("owner-a").firstAttempt();
        assertThrows(IllegalArgumentException.class, () -> ledger.store.starts().startAll(List.of(
                start(pending, UUID.randomUUID()), start(pending, UUID.randomUUID()))));
        assertEquals(1, ledger.count("SELECT count(*) FROM attempts WHERE id = ? AND status = 'PENDING'",
                pending.id()));
    }

    @Test
    void eightWorkersStartingOverlappingPollsStartEachAttemptExactlyOnce() {
        // given 40 PENDING attempts, and 8 workers whose polls each hold all of them in their own order
        List<Attempt> attempts = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            attempts.add(ledger.submitted("owner-" + (i % 3)).firstAttempt());
        }
        List<Callable<List<TransitionOutcome>>> workers = new ArrayList<>();
        for (int w = 0; w < 8; w++) {
            List<Attempt> order = new ArrayList<>(attempts);
            Collections.shuffle(order, new Random(w));
            workers.add(() -> ledger.store.starts().startAll(order.stream().map(a -> start(a, UUID.randomUUID())).toList()));
        }

        // when they race (job rows are locked in id order, so no two deadlock)
        List<List<TransitionOutcome>> polls = StartGate.race(workers);

        // then every attempt was started by exactly one of them
        long applied = polls.stream().flatMap(List::stream).filter(TransitionOutcome.Applied.class::isInstance)
                .count();
        assertEquals(40, applied);
        for (Attempt attempt : attempts) {
            assertEquals(1, ledger.count("SELECT count(*) FROM attempts WHERE id = ? AND status = 'STARTING'",
                    attempt.id()));
        }
    }
}
