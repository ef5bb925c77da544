package dev.onejob.worker;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.ledger.AttemptStarts;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.providers.ProviderCall;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the ledger's view of this worker's streamed calls in step with the streams: while a provider keeps sending
 * pieces, its attempt's soft deadline and abandon time are moved on every {@link #EVERY}, so an operator cannot
 * resolve (and fail over) a call that is visibly working, and the sweeper does not take its worker for vanished.
 * A stream silent past its soft timeout is not renewed: the worker reports it UNKNOWN itself.
 *
 * <p>Consumes the calls the worker launches ({@link #track}) and their ends ({@link #forget}); produces one
 * {@link AttemptStarts#renewStarts} per round for the streams that spoke. Owns one scheduler thread. A database away
 * only skips rounds: the attempt then reads as a plain call with a passed soft deadline, which is safe.
 */
final class StreamLeases implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StreamLeases.class);
    static final Duration EVERY = Duration.ofSeconds(1);

    private record Lease(ProviderCall call, UUID token, ProviderConfig provider) {
    }

    private final Ledger ledger;
    private final Map<UUID, Lease> leases = new ConcurrentHashMap<>();
    private final ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "stream-leases");
        t.setDaemon(true);
        return t;
    });

    StreamLeases(Ledger ledger) {
        this.ledger = ledger;
        renewer.scheduleWithFixedDelay(this::renewSafely, EVERY.toMillis(), EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    void track(UUID attemptId, ProviderCall call, UUID token, ProviderConfig provider) {
        leases.put(attemptId, new Lease(call, token, provider));
    }

    void forget(UUID attemptId) {
        leases.remove(attemptId);
    }

    /** The streams that spoke within their soft timeout, renewed in one statement; how many rows moved. */
    int renew() {
        long now = System.nanoTime();
        List<AttemptStarts.Start> due = new ArrayList<>();
        leases.forEach((attemptId, lease) -> {
            if (lease.call().streaming() && now - lease.call().lastActivityNanos()
                    < lease.provider().softTimeout().toNanos()) {
                due.add(new AttemptStarts.Start(attemptId, lease.provider().softTimeout(),
                        AttemptWorker.abandonAfter(lease.provider()), lease.token()));
            }
        });
        return ledger.starts().renewStarts(due);
    }

    private void renewSafely() {
        try {
            renew();
        } catch (DatabaseException e) {
            log.warn("event=stream_leases_not_renewed streams={} error=\"{}\"", leases.size(), e.getMessage());
        } catch (RuntimeException e) {
            log.error("event=stream_leases_failed error=\"{}\"", e.toString(), e);
        }
    }

    @Override
    public void close() {
        renewer.shutdownNow();
    }
}
