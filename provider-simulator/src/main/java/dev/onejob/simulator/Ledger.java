package dev.onejob.simulator;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The simulator's record of every protocol request, in arrival order.
 *
 * <p>Consumes "a request arrived" and "it was answered with status N" events from the request handler;
 * produces immutable snapshots and per-key counts. Owns the entry list; all access is under this
 * object's lock, which is held only for list operations (never during I/O).
 */
final class Ledger {

    /** Fields of a request known when it arrives; the ledger adds sequence and time. */
    record Arrival(String path, Protocol protocol, String idempotencyKey, String model, String bodySha256,
                   String behaviour) {
    }

    /** Where to report the answered status of one recorded request. */
    @FunctionalInterface
    interface Receipt {
        void answered(int status);
    }

    private final Clock clock;
    private final List<LedgerEntry> entries = new ArrayList<>();
    private long generation;

    Ledger(Clock clock) {
        this.clock = clock;
    }

    synchronized Receipt record(Arrival arrival) {
        LedgerEntry entry = new LedgerEntry(entries.size() + 1L, clock.instant(), arrival.path(),
                arrival.protocol().wireName(), arrival.idempotencyKey(), arrival.model(), arrival.bodySha256(),
                arrival.behaviour(), null);
        entries.add(entry);
        long recordedIn = generation;
        int index = entries.size() - 1;
        return status -> update(recordedIn, index, status);
    }

    synchronized List<LedgerEntry> snapshot() {
        return List.copyOf(entries);
    }

    synchronized long countWithIdempotencyKey(String idempotencyKey) {
        return entries.stream().filter(e -> idempotencyKey.equals(e.idempotencyKey())).count();
    }

    synchronized void clear() {
        entries.clear();
        generation++;
    }

    private synchronized void update(long recordedIn, int index, int status) {
        // A request answered after a clear belongs to the cleared ledger; it must not touch the new one.
        if (recordedIn == generation) {
            entries.set(index, entries.get(index).withStatus(status, clock.instant()));
        }
    }
}
