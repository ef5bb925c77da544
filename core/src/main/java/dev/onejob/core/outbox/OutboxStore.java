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
