package dev.onejob.core.outbox;

import com.fasterxml.jackson.databind.JsonNode;
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
 * from queueing a second copy.
 */
public final class OutboxStore {
    /** Header carrying the JSON Schema version of the payload. */
    public static final String SCHEMA_VERSION_HEADER = "onejob-schema-version";
    /** Header carrying the dedupe key, so consumers can recognise a re-sent event. */
    public static final String EVENT_ID_HEADER = "onejob-event-id";

    private static final String INSERT_EVENT_IF_ABSENT = """
            INSERT INTO outbox (topic, dedupe_key, message_key, payload, headers)
            VALUES (?, ?, ?, ?::jsonb, ?::jsonb)
            ON CONFLICT (topic, dedupe_key) DO NOTHING
            """;
    private static final String COUNT_UNSENT = "SELECT count(*) FROM outbox WHERE sent_at IS NULL";
    private static final String OLDEST_UNSENT = "SELECT min(created_at) FROM outbox WHERE sent_at IS NULL";
    /** Several relays may run: each claims rows the others have not locked, so a row is normally sent once. */
    private static final String CLAIM_UNSENT = """
            SELECT id, topic, message_key, payload::text, headers::text FROM outbox
            WHERE sent_at IS NULL ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED""";
    private static final String MARK_SENT = "UPDATE outbox SET sent_at = now() WHERE id = ANY (?) AND sent_at IS NULL";

    /** One queued event as the relay publishes it. */
    public record OutboxEvent(long id, String topic, String messageKey, JsonNode payload, Map<String, String> headers) {
    }

    /** Publishes a batch and returns only once the broker acknowledged every record; throws if any failed. */
    @FunctionalInterface
    public interface Publisher {
        void publish(java.util.List<OutboxEvent> events) throws Exception;
    }

    private OutboxStore() {
    }

    /**
     * Queues one event in the caller's transaction; returns false when an event with that dedupe key was queued
     * before (the caller replayed a change that already happened).
     */
    public static boolean enqueue(Connection connection, Topic<String, JsonNode> topic, String dedupeKey,
                                  String messageKey, JsonNode payload, int schemaVersion) throws SQLException {
        var headers = Json.object();
        headers.put(SCHEMA_VERSION_HEADER, Integer.toString(schemaVersion));
        headers.put(EVENT_ID_HEADER, topic.name() + "/" + dedupeKey);
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
     * Claims up to {@code limit} unsent events, publishes them and marks them sent, in one transaction: if the
     * publisher throws or the process dies before the commit, the rows stay unsent and are published again later
     * (consumers are idempotent), never lost. Returns how many were sent.
     */
    public static int relayBatch(dev.onejob.core.db.Database database, int limit, Publisher publisher) {
        return database.inTransaction(connection -> {
            java.util.List<OutboxEvent> events = new java.util.ArrayList<>();
            try (PreparedStatement claim = connection.prepareStatement(CLAIM_UNSENT)) {
                claim.setInt(1, limit);
                try (ResultSet rows = claim.executeQuery()) {
                    while (rows.next()) {
                        events.add(new OutboxEvent(rows.getLong(1), rows.getString(2), rows.getString(3),
                                Json.parse(rows.getString(4)), headers(Json.parse(rows.getString(5)))));
                    }
                }
            }
            if (events.isEmpty()) {
                return 0;
            }
            try {
                publisher.publish(events);
            } catch (Exception e) {
                throw new OutboxPublishException("publishing " + events.size() + " outbox events failed: " + e, e);
            }
            try (PreparedStatement mark = connection.prepareStatement(MARK_SENT)) {
                mark.setArray(1, connection.createArrayOf("bigint", events.stream().map(OutboxEvent::id).toArray()));
                mark.executeUpdate();
            }
            return events.size();
        });
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
