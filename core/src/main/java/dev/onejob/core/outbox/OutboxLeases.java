package dev.onejob.core.outbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.db.Database;
import dev.onejob.core.json.Json;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The relay's side of {@code outbox}: relays lease rows (each lease named by a token), publish them, and mark them
 * sent; a relay only ever marks, gives back or parks rows its token still holds. The rows come from
 * {@link OutboxStore}, which queues them in the transactions of the changes they announce.
 */
public final class OutboxLeases {
    /**
     * Leases up to {@code limit} unsent rows nobody holds a live lease on, oldest first, in a transaction of its own,
     * and counts the attempt. Several relays share the work ({@code SKIP LOCKED}); a relay that dies leaves its rows
     * to be claimed again when the lease runs out.
     */
    private static final String LEASE_UNSENT = """
            UPDATE outbox SET publish_attempts = publish_attempts + 1,
                              claimed_until = now() + ? * interval '1 millisecond', claimed_by = ?
            WHERE id IN (SELECT id FROM outbox
                         WHERE sent_at IS NULL AND parked_at IS NULL
                           AND (claimed_until IS NULL OR claimed_until < now())
                           AND (not_before IS NULL OR not_before <= now())
                         ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)
            RETURNING id, topic, message_key, payload::text, headers::text, publish_attempts, created_at""";
    /** Locks the rows {@code claimed_by} still holds; the relay commits its Kafka transaction while holding them. */
    private static final String LOCK_HELD = """
            SELECT id FROM outbox WHERE id = ANY (?) AND claimed_by = ? AND sent_at IS NULL FOR UPDATE""";
    private static final String MARK_SENT = """
            UPDATE outbox SET sent_at = now() WHERE id = ANY (?) AND sent_at IS NULL AND claimed_by = ?""";
    private static final String RELEASE_UNPUBLISHED = """
            UPDATE outbox SET claimed_until = NULL, claimed_by = NULL, publish_attempts = publish_attempts - 1
            WHERE id = ANY (?) AND sent_at IS NULL AND publish_attempts > 0 AND claimed_by = ?""";
    private static final String PARK = """
            UPDATE outbox SET parked_at = now(), park_reason = ?, claimed_until = NULL
            WHERE id = ? AND sent_at IS NULL AND claimed_by = ?""";

    private OutboxLeases() {
    }

    /** Leases up to {@code limit} rows for {@code holder}, a token naming this one lease. */
    public static List<OutboxEvent> lease(Database database, int limit, Duration lease, UUID holder) {
        return database.inTransaction(connection -> {
            List<OutboxEvent> events = new ArrayList<>();
            try (PreparedStatement claim = connection.prepareStatement(LEASE_UNSENT)) {
                claim.setLong(1, lease.toMillis());
                claim.setObject(2, holder);
                claim.setInt(3, limit);
                try (ResultSet rows = claim.executeQuery()) {
                    while (rows.next()) {
                        events.add(new OutboxEvent(rows.getLong(1), rows.getString(2), rows.getString(3),
                                rows.getString(4), headers(Json.parse(rows.getString(5))), rows.getInt(6),
                                rows.getTimestamp(7).toInstant()));
                    }
                }
            }
            events.sort(Comparator.comparingLong(OutboxEvent::id));
            return events;
        });
    }

    /**
     * Gives back rows whose publication certainly did not happen (the Kafka transaction was aborted), so the next
     * round takes them at once instead of waiting for the lease, without the check for an earlier copy.
     */
    public static void releaseUnpublished(Database database, List<OutboxEvent> events, UUID holder) {
        if (events.isEmpty()) {
            return;
        }
        database.inTransaction(connection -> {
            try (PreparedStatement release = connection.prepareStatement(RELEASE_UNPUBLISHED)) {
                release.setArray(1, ids(connection, events));
                release.setObject(2, holder);
                return release.executeUpdate();
            }
        });
    }

    /**
     * In the caller's transaction: locks those of {@code events} that {@code holder} still holds and returns their
     * ids. While the caller's transaction lasts, no other relay can lease them.
     */
    public static Set<Long> lockHeld(Connection connection, List<OutboxEvent> events, UUID holder)
            throws SQLException {
        Set<Long> held = new HashSet<>();
        try (PreparedStatement lock = connection.prepareStatement(LOCK_HELD)) {
            lock.setArray(1, ids(connection, events));
            lock.setObject(2, holder);
            try (ResultSet rows = lock.executeQuery()) {
                while (rows.next()) {
                    held.add(rows.getLong(1));
                }
            }
        }
        return held;
    }

    /** Marks sent, in the caller's transaction, the events {@code holder} still holds; returns how many. */
    public static int markSent(Connection connection, List<OutboxEvent> events, UUID holder) throws SQLException {
        if (events.isEmpty()) {
            return 0;
        }
        try (PreparedStatement mark = connection.prepareStatement(MARK_SENT)) {
            mark.setArray(1, ids(connection, events));
            mark.setObject(2, holder);
            return mark.executeUpdate();
        }
    }

    /** Marks sent, in a transaction of its own, the events {@code holder} still holds. */
    public static int markSent(Database database, List<OutboxEvent> events, UUID holder) {
        return events.isEmpty() ? 0 : database.inTransaction(connection -> markSent(connection, events, holder));
    }

    /** Sets one held row aside with the reason the broker gave; it is not leased again. */
    public static boolean park(Database database, OutboxEvent event, String reason, UUID holder) {
        return database.inTransaction(connection -> {
            try (PreparedStatement park = connection.prepareStatement(PARK)) {
                park.setString(1, reason);
                park.setLong(2, event.id());
                park.setObject(3, holder);
                return park.executeUpdate() == 1;
            }
        });
    }

    private static Array ids(Connection connection, List<OutboxEvent> events) throws SQLException {
        return connection.createArrayOf("bigint", events.stream().map(OutboxEvent::id).toArray());
    }

    private static Map<String, String> headers(JsonNode node) {
        Map<String, String> headers = new LinkedHashMap<>();
        node.fields().forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
        return headers;
    }
}
