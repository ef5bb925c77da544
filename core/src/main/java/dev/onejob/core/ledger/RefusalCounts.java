package dev.onejob.core.ledger;

import dev.onejob.core.db.Database;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads how often each provider refused lately: its attempts FAILED with a definite refusal that ran nothing
 * ({@code retryable}: 408, 429, 503, 529, not sent) within a window of its own, and when the last one was. The
 * cool-down ({@code Cooldown}) is decided from it. Read-only; walks {@code attempts_failed_idx} (provider, finished_at)
 * per provider, so it costs the window's failures, not the ledger.
 */
public final class RefusalCounts {
    private static final String RECENT_REFUSALS = """
            SELECT p.provider, r.refusals, r.last
            FROM unnest(?::text[], ?::bigint[]) AS p(provider, window_ms)
            CROSS JOIN LATERAL (
                SELECT count(*) AS refusals, max(finished_at) AS last FROM attempts a
                WHERE a.status = 'FAILED' AND a.provider = p.provider AND a.retryable
                  AND a.finished_at > now() - p.window_ms * interval '1 millisecond') AS r""";

    /** A provider's refusals within its window, and the time of the last one (null when none). */
    public record Refusals(long count, Instant last) {
    }

    private final Database database;

    public RefusalCounts(Database database) {
        this.database = database;
    }

    /** Each provider's refusals within its own window. */
    public Map<String, Refusals> within(Map<String, Duration> windows) {
        String[] providers = windows.keySet().toArray(String[]::new);
        Long[] millis = windows.keySet().stream().map(p -> windows.get(p).toMillis()).toArray(Long[]::new);
        return database.inTransaction(connection -> {
            Map<String, Refusals> counts = new HashMap<>();
            List<Object> ignored = LedgerSql.queryList(connection, RECENT_REFUSALS, row -> {
                Timestamp last = row.getTimestamp("last");
                counts.put(row.getString("provider"), new Refusals(row.getLong("refusals"),
                        last == null ? null : last.toInstant()));
                return null;
            }, connection.createArrayOf("text", providers), connection.createArrayOf("bigint", millis));
            return counts;
        });
    }
}
