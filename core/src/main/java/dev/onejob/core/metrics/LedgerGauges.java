package dev.onejob.core.metrics;

import dev.onejob.core.db.Database;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gauges read from the ledger every few seconds (not on every scrape, so a scrape never waits on the database):
 * UNKNOWN attempts open and the age of the oldest, attempts by state, the outbox backlog and its oldest row's age.
 */
public final class LedgerGauges implements AutoCloseable {
    private static final String[] STATES = {"PENDING", "STARTING", "UNKNOWN", "SUCCEEDED", "FAILED", "CANCELLED",
            "DISCARDED"};
    private static final String COUNT_BY_STATE = "SELECT status, count(*) FROM attempts GROUP BY status";
    private static final String OLDEST_UNKNOWN =
            "SELECT coalesce(extract(epoch FROM now() - min(updated_at)), 0) FROM attempts WHERE status = 'UNKNOWN'";
    private static final String OUTBOX_BACKLOG = """
            SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)
            FROM outbox WHERE sent_at IS NULL""";

    private final Database database;
    private final AtomicLong[] byState = new AtomicLong[STATES.length];
    private final AtomicLong oldestUnknownSeconds = new AtomicLong();
    private final AtomicLong outboxBacklog = new AtomicLong();
    private final AtomicLong outboxOldestSeconds = new AtomicLong();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ledger-gauges");
        t.setDaemon(true);
        return t;
    });

    public LedgerGauges(Database database, MeterRegistry registry) {
        this.database = database;
        for (int i = 0; i < STATES.length; i++) {
            byState[i] = new AtomicLong();
            Gauge.builder("onejob_attempts", byState[i], AtomicLong::get).tag("status", STATES[i])
                    .description("attempts by status").register(registry);
        }
        Gauge.builder("onejob_unknown_attempts_oldest_age_seconds", oldestUnknownSeconds, AtomicLong::get)
                .description("how long the oldest UNKNOWN attempt has waited for an answer or an operator")
                .register(registry);
        Gauge.builder("onejob_outbox_backlog", outboxBacklog, AtomicLong::get)
                .description("outbox events not yet published").register(registry);
        Gauge.builder("onejob_outbox_oldest_age_seconds", outboxOldestSeconds, AtomicLong::get).register(registry);
        timer.scheduleWithFixedDelay(this::refresh, 0, 5, TimeUnit.SECONDS);
    }

    private void refresh() {
        try {
            database.inTransaction(connection -> {
                long[] counts = new long[STATES.length];
                try (PreparedStatement s = connection.prepareStatement(COUNT_BY_STATE); ResultSet rows = s.executeQuery()) {
                    while (rows.next()) {
                        counts[Arrays.asList(STATES).indexOf(rows.getString(1))] = rows.getLong(2);
                    }
                }
                for (int i = 0; i < STATES.length; i++) {
                    byState[i].set(counts[i]);
                }
                try (PreparedStatement s = connection.prepareStatement(OLDEST_UNKNOWN); ResultSet rows = s.executeQuery()) {
                    rows.next();
                    oldestUnknownSeconds.set(rows.getLong(1));
                }
                try (PreparedStatement s = connection.prepareStatement(OUTBOX_BACKLOG); ResultSet rows = s.executeQuery()) {
                    rows.next();
                    outboxBacklog.set(rows.getLong(1));
                    outboxOldestSeconds.set(rows.getLong(2));
                }
                return null;
            });
        } catch (RuntimeException e) {
            // The database is away: keep the last values; /health reports the outage.
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
