package dev.onejob.core.outbox;

import dev.onejob.core.config.Env;
import dev.onejob.core.config.Settings;
import dev.onejob.core.db.Database;
import dev.onejob.core.service.PeriodicRounds;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes outbox rows sent longer than {@code OUTBOX_RETENTION} ago, so the outbox holds what is in flight and a
 * recent past, not every event ever published. Sent rows are needed by nobody: the ledger answers a replayed change
 * as already applied before it would queue an event again (the outbox's unique key is a second guard only), and
 * consumers read Kafka, not the outbox. Unsent and parked rows are never deleted. Runs beside each outbox relay;
 * several pruners skip each other's rows. Each round deletes in windows of {@link #WINDOW} of the oldest rows,
 * each in a transaction of its own, until a window finds fewer than half of it old enough.
 */
public final class OutboxPruner extends PeriodicRounds {
    private static final Logger log = LoggerFactory.getLogger(OutboxPruner.class);
    static final int WINDOW = 5_000;
    static final Duration EVERY = Duration.ofSeconds(30);
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

    private final Database database;
    private final Duration retention;

    public OutboxPruner(Database database, Duration retention) {
        super(EVERY, "outbox_prune_failed");
        this.database = database;
        this.retention = retention;
    }

    /** {@code OUTBOX_RETENTION}: how long sent rows are kept, {@link #DEFAULT_RETENTION} unless set; 0s keeps them. */
    public static Duration retention(Settings settings) {
        return settings.duration(Env.OUTBOX_RETENTION, DEFAULT_RETENTION, Duration.ZERO,
                Duration.ofDays(3650));
    }

    /** PostgreSQL away fails the round only: the rows wait for the next one. */
    @Override
    protected void round() {
        pruneOnce();
    }

    /** One round; returns how many rows it deleted. */
    public long pruneOnce() {
        long deleted = 0;
        int last;
        do {
            last = database.inTransaction(connection -> OutboxStore.pruneSent(connection, retention, WINDOW));
            deleted += last;
        } while (last >= WINDOW / 2 && !stopping());
        if (deleted > 0) {
            log.info("event=outbox_pruned rows={} retention={}", deleted, retention);
        }
        return deleted;
    }
}
