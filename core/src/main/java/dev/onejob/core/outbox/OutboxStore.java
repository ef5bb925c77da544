package dev.onejob.core.outbox;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topic;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

/**
 * Owns every write to {@code outbox}. Events are enqueued inside the caller's transaction, so an event exists
 * exactly when the change it announces committed; {@code UNIQUE (topic, dedupe_key)} keeps a replayed transaction
 * from queueing a second copy. Relays lease rows (each lease named by a token), publish them, and mark them sent;
 * a relay only ever marks, gives back or parks rows its token still holds.
 */
public final class OutboxStore {
    /** Header carrying the JSON Schema version of the payload. */
    /** Header carrying the dedupe key, so consumers can recognise a re-sent event. */

    private static final String INSERT_EVENT_IF_ABSENT = """
            INSERT INTO outbox (topic, dedupe_key, message_key, payload, headers)
            VALUES (?, ?, ?, ?::jsonb, ?::jsonb)
            ON CONFLICT (topic, dedupe_key) DO NOTHING
            """;
    private static final String INSERT_EVENTS_IF_ABSENT = """
            INSERT INTO outbox (topic, dedupe_key, message_key, payload, headers)
            SELECT ?, t.dedupe_key, t.message_key, t.payload::jsonb, t.headers::jsonb
            FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY
                 AS t(dedupe_key, message_key, payload, headers, n)
            ORDER BY t.n
            ON CONFLICT (topic, dedupe_key) DO NOTHING
            """;
    /**
     * Queues one event that must not be published before {@code ?} milliseconds from now (a retry's attempt command
     * waiting out its backoff).
     */
    private static final String INSERT_DEFERRED_EVENT_IF_ABSENT = """
            INSERT INTO outbox (topic, dedupe_key, message_key, payload, headers, not_before)
            VALUES (?, ?, ?, ?::jsonb, ?::jsonb, now() + ? * interval '1 millisecond')
            ON CONFLICT (topic, dedupe_key) DO NOTHING
            """;
    /** Due rows only: one waiting for its time is not a relay falling behind. */
    private static final String COUNT_UNSENT = """
            SELECT count(*) FROM outbox WHERE sent_at IS NULL AND parked_at IS NULL
              AND (not_before IS NULL OR not_before <= now())""";
    private static final String OLDEST_UNSENT = """
            SELECT min(coalesce(not_before, created_at)) FROM outbox WHERE sent_at IS NULL AND parked_at IS NULL
              AND (not_before IS NULL OR not_before <= now())""";
    private static final String PARKED = """
            SELECT id, topic, message_key, park_reason, parked_at FROM outbox
            WHERE parked_at IS NOT NULL AND sent_at IS NULL ORDER BY id LIMIT ?""";
    private static final String COUNT_PARKED =
            "SELECT count(*) FROM outbox WHERE parked_at IS NOT NULL AND sent_at IS NULL";
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
    /**
     * Deletes the rows sent before the cutoff among the oldest {@code ?} rows by id: the scan is bounded by the window
     * whatever the table holds, and rows are roughly in the order they are sent, so the oldest are where it looks.
     * Unsent and parked rows are kept; rows another pruner holds are skipped.
     */
    private static final String PRUNE_SENT = """
            DELETE FROM outbox WHERE id IN (
                SELECT id FROM outbox
                WHERE id IN (SELECT id FROM outbox ORDER BY id LIMIT ?)
                  AND sent_at < now() - ? * interval '1 millisecond'
                FOR UPDATE SKIP LOCKED)""";
    private static final String PARK = """
            UPDATE outbox SET parked_at = now(), park_reason = ?, claimed_until = NULL
            WHERE id = ? AND sent_at IS NULL AND claimed_by = ?""";

    /**
     * One queued event as a relay publishes it. {@code publishAttempts > 1} means an earlier claim may have published
     * it already.
     */
    public record OutboxEvent(long id, String topic, String messageKey, JsonNode payload, Map<String, String> headers,
                              int publishAttempts, java.time.Instant createdAt) {
        public String eventId() {
            return headers.get(Headers.EVENT_ID);
        }
    }

    private OutboxStore() {
    }

    /**
     * Queues one event in the caller's transaction; returns false when an event with that dedupe key was queued
     * before (the caller replayed a change that already happened).
     */
    public static boolean enqueue(Connection connection, Topic<String, JsonNode> topic, String dedupeKey,
                                  String messageKey, JsonNode payload, int schemaVersion) throws SQLException {
        var headers = headers(topic, dedupeKey, schemaVersion);
        try (PreparedStatement statement = connection.prepareStatement(INSERT_EVENT_IF_ABSENT)) {
            statement.setString(1, topic.name());
            statement.setString(2, dedupeKey);
            statement.setString(3, messageKey);
            statement.setString(4, Json.write(payload));
            statement.setString(5, Json.write(headers));
            return statement.executeUpdate() == 1;
        }
    }

    /**
     * Queues one event in the caller's transaction that relays publish only once {@code delay} has passed (from the
     * transaction's time); false when an event with that dedupe key was queued before.
     */
    public static boolean enqueueDeferred(Connection connection, Topic<String, JsonNode> topic, String dedupeKey,
                                          String messageKey, JsonNode payload, int schemaVersion,
                                          java.time.Duration delay) throws SQLException {
        var headers = headers(topic, dedupeKey, schemaVersion);
        try (PreparedStatement statement = connection.prepareStatement(INSERT_DEFERRED_EVENT_IF_ABSENT)) {
            statement.setString(1, topic.name());
            statement.setString(2, dedupeKey);
            statement.setString(3, messageKey);
            statement.setString(4, Json.write(payload));
            statement.setString(5, Json.write(headers));
            statement.setLong(6, Math.max(0, delay.toMillis()));
            return statement.executeUpdate() == 1;
        }
    }

    /** An event to queue: its dedupe key, its Kafka key, its payload and the payload's schema version. */
    public record NewEvent(String dedupeKey, String messageKey, JsonNode payload, int schemaVersion) {
    }

    /**
     * Queues many events of one topic in the caller's transaction with one statement, in the order given; returns
     * how many were new (an event whose dedupe key was queued before is skipped, as by {@link #enqueue}).
     */
    public static int enqueueAll(Connection connection, Topic<String, JsonNode> topic, java.util.List<NewEvent> events)
            throws SQLException {
        if (events.isEmpty()) {
            return 0;
        }
        String[] dedupeKeys = new String[events.size()];
        String[] messageKeys = new String[events.size()];
        String[] payloads = new String[events.size()];
        String[] headers = new String[events.size()];
        for (int i = 0; i < events.size(); i++) {
            NewEvent event = events.get(i);
            dedupeKeys[i] = event.dedupeKey();
            messageKeys[i] = event.messageKey();
            payloads[i] = Json.write(event.payload());
            headers[i] = Json.write(headers(topic, event.dedupeKey(), event.schemaVersion()));
        }
        try (PreparedStatement statement = connection.prepareStatement(INSERT_EVENTS_IF_ABSENT)) {
            statement.setString(1, topic.name());
            statement.setArray(2, connection.createArrayOf("text", dedupeKeys));
            statement.setArray(3, connection.createArrayOf("text", messageKeys));
            statement.setArray(4, connection.createArrayOf("text", payloads));
            statement.setArray(5, connection.createArrayOf("text", headers));
            return statement.executeUpdate();
        }
    }

    private static com.fasterxml.jackson.databind.node.ObjectNode headers(Topic<String, JsonNode> topic,
                                                                          String dedupeKey, int schemaVersion) {
        var headers = Json.object();
        headers.put(Headers.SCHEMA_VERSION, Integer.toString(schemaVersion));
        headers.put(Headers.EVENT_ID, topic.name() + "/" + dedupeKey);
        return headers;
    }

    /** Leases up to {@code limit} rows for {@code holder}, a token naming this one lease. */
    public static java.util.List<OutboxEvent> lease(dev.onejob.core.db.Database database, int limit,
                                                    java.time.Duration lease, java.util.UUID holder) {
        return database.inTransaction(connection -> {
            java.util.List<OutboxEvent> events = new java.util.ArrayList<>();
            try (PreparedStatement claim = connection.prepareStatement(LEASE_UNSENT)) {
                claim.setLong(1, lease.toMillis());
                claim.setObject(2, holder);
                claim.setInt(3, limit);
                try (ResultSet rows = claim.executeQuery()) {
                    while (rows.next()) {
                        events.add(new OutboxEvent(rows.getLong(1), rows.getString(2), rows.getString(3),
                                Json.parse(rows.getString(4)), headers(Json.parse(rows.getString(5))), rows.getInt(6),
                                rows.getTimestamp(7).toInstant()));
                    }
                }
            }
            events.sort(java.util.Comparator.comparingLong(OutboxEvent::id));
            return events;
        });
    }

    /**
     * Gives back rows whose publication certainly did not happen (the Kafka transaction was aborted), so the next
     * round takes them at once instead of waiting for the lease, without the check for an earlier copy.
     */
    public static void releaseUnpublished(dev.onejob.core.db.Database database, java.util.List<OutboxEvent> events,
                                          java.util.UUID holder) {
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
    public static java.util.Set<Long> lockHeld(Connection connection, java.util.List<OutboxEvent> events,
                                               java.util.UUID holder) throws SQLException {
        java.util.Set<Long> held = new java.util.HashSet<>();
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
    public static int markSent(Connection connection, java.util.List<OutboxEvent> events, java.util.UUID holder)
            throws SQLException {
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
    public static int markSent(dev.onejob.core.db.Database database, java.util.List<OutboxEvent> events,
                               java.util.UUID holder) {
        return events.isEmpty() ? 0 : database.inTransaction(connection -> markSent(connection, events, holder));
    }

    /**
     * Deletes sent rows older than {@code retention} among the oldest {@code window} rows, in the caller's
     * transaction; returns how many.
     */
    public static int pruneSent(Connection connection, java.time.Duration retention, int window)
            throws SQLException {
        try (PreparedStatement prune = connection.prepareStatement(PRUNE_SENT)) {
            prune.setInt(1, window);
            prune.setLong(2, retention.toMillis());
            return prune.executeUpdate();
        }
    }

    /** Sets one held row aside with the reason the broker gave; it is not leased again. */
    public static boolean park(dev.onejob.core.db.Database database, OutboxEvent event, String reason,
                               java.util.UUID holder) {
        return database.inTransaction(connection -> {
            try (PreparedStatement park = connection.prepareStatement(PARK)) {
                park.setString(1, reason);
                park.setLong(2, event.id());
                park.setObject(3, holder);
                return park.executeUpdate() == 1;
            }
        });
    }

    /** One parked row, as {@code ./onejob outbox status} shows it. */
    public record Parked(long id, String topic, String messageKey, String reason, java.time.Instant parkedAt) {
    }

    public static long countParked(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(COUNT_PARKED);
             ResultSet rows = statement.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** The oldest {@code limit} parked rows. */
    public static java.util.List<Parked> parked(Connection connection, int limit) throws SQLException {
        java.util.List<Parked> parked = new java.util.ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(PARKED)) {
            statement.setInt(1, limit);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    parked.add(new Parked(rows.getLong(1), rows.getString(2), rows.getString(3), rows.getString(4),
                            rows.getTimestamp(5).toInstant()));
                }
            }
        }
        return parked;
    }

    private static java.sql.Array ids(Connection connection, java.util.List<OutboxEvent> events) throws SQLException {
        return connection.createArrayOf("bigint", events.stream().map(OutboxEvent::id).toArray());
    }

    private static Map<String, String> headers(JsonNode node) {
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        node.fields().forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
        return headers;
    }

    /** The age of the oldest unsent event, or null when none is waiting. */
    public static java.time.Duration oldestUnsentAge(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(OLDEST_UNSENT);
             ResultSet rows = statement.executeQuery()) {
            rows.next();
            java.sql.Timestamp oldest = rows.getTimestamp(1);
            return oldest == null ? null : java.time.Duration.between(oldest.toInstant(), java.time.Instant.now());
        }
    }

    public static long countUnsent(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(COUNT_UNSENT);
             ResultSet rows = statement.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** The events queued for one topic and key, oldest first (for tests and the operator CLI). */
    public static java.util.List<Map.Entry<String, JsonNode>> eventsFor(Connection connection, String topic,
                                                                       String messageKey) throws SQLException {
        var events = new java.util.ArrayList<Map.Entry<String, JsonNode>>();
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT dedupe_key, payload::text FROM outbox WHERE topic = ? AND message_key = ? ORDER BY id")) {
            statement.setString(1, topic);
            statement.setString(2, messageKey);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    events.add(Map.entry(rows.getString(1), Json.parse(rows.getString(2))));
                }
            }
        }
        return events;
    }
}
