package dev.onejob.simulator;

import java.math.BigDecimal;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The simulator's record of every protocol request, in arrival order.
 *
 * <p>Consumes "a request arrived" and "it was answered with status N" (with what it was charged, when billed)
 * events from the request handler; produces immutable snapshots and per-key counts. Owns the entry list; all access is under this
 * object's lock, which is held only for list operations (never during I/O).
 */
final class Ledger {

    /** Fields of a request known when it arrives; the ledger adds sequence and time. */
    record Arrival(String path, Protocol protocol, String idempotencyKey, String model, String bodySha256,
                   String behaviour) {
    }

    /** What one billed answer was charged: the request id it carried, its usage and the price of that. */
    record Charge(String requestId, Usage usage, BigDecimal costUsd) {
    }

    /** Where to report the answered status of one recorded request. */
    @FunctionalInterface
    interface Receipt {
        /** A 2xx answer with a {@code usage} block is billed ({@code charge}); any other is not ({@code null}). */
        void answered(int status, Charge charge);

        default void answered(int status) {
            answered(status, null);
        }
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
        return (status, charge) -> update(recordedIn, index, status, charge);
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

    private synchronized void update(long recordedIn, int index, int status, Charge charge) {
        if (charge != null && (status < 200 || status > 299)) {
            throw new IllegalArgumentException("only a 2xx answer is billed, not a " + status);
        }
        // A request answered after a clear belongs to the cleared ledger; it must not touch the new one.
        if (recordedIn == generation) {
            entries.set(index, entries.get(index).withAnswer(status, clock.instant(), charge));
        }
    }
}
