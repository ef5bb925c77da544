package dev.onejob.core.outbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.events.Headers;
import dev.onejob.core.db.Database;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topic;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Queues events in {@code outbox} and deletes them once sent. Events are enqueued inside the caller's transaction, so
 * an event exists exactly when the change it announces committed; {@code UNIQUE (topic, dedupe_key)} keeps a replayed
 * transaction from queueing a second copy. Relays lease, publish and mark the rows through {@link OutboxLeases};
 * operators read the backlog through {@link OutboxStatus}.
 */
public final class OutboxStore {
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
    private static final String SELECT_EVENTS_OF_KEY =
            "SELECT dedupe_key, payload::text FROM outbox WHERE topic = ? AND message_key = ? ORDER BY id";

    /** Wakes this process's relays once the queuing transaction commits ({@link OutboxWakeup}). */
    private static final Runnable WAKE_RELAYS = OutboxWakeup::committed;

    private OutboxStore() {
    }

    /**
     * Queues one event in the caller's transaction; returns false when an event with that dedupe key was queued
     * before (the caller replayed a change that already happened).
     */
    public static boolean enqueue(Connection connection, Topic<String, JsonNode> topic, String dedupeKey,
                                  String messageKey, JsonNode payload, int schemaVersion) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(INSERT_EVENT_IF_ABSENT)) {
            bindEvent(statement, topic, dedupeKey, messageKey, payload, schemaVersion);
            Database.afterCommit(WAKE_RELAYS);
            return statement.executeUpdate() == 1;
        }
    }

    /**
     * Queues one event in the caller's transaction that relays publish only once {@code delay} has passed (from the
     * transaction's time); false when an event with that dedupe key was queued before.
     */
    public static boolean enqueueDeferred(Connection connection, Topic<String, JsonNode> topic, String dedupeKey,
                                          String messageKey, JsonNode payload, int schemaVersion,
                                          Duration delay) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(INSERT_DEFERRED_EVENT_IF_ABSENT)) {
            bindEvent(statement, topic, dedupeKey, messageKey, payload, schemaVersion);
            statement.setLong(6, Math.max(0, delay.toMillis()));
            return statement.executeUpdate() == 1;
        }
    }

    /** Binds the first five parameters of a one-event insert: topic, dedupe key, Kafka key, payload, headers. */
    private static void bindEvent(PreparedStatement statement, Topic<String, JsonNode> topic, String dedupeKey,
                                  String messageKey, JsonNode payload, int schemaVersion) throws SQLException {
        statement.setString(1, topic.name());
        statement.setString(2, dedupeKey);
        statement.setString(3, messageKey);
        statement.setString(4, Json.write(payload));
        statement.setString(5, Json.write(headers(topic, dedupeKey, schemaVersion)));
    }

    /** An event to queue: its dedupe key, its Kafka key, its payload and the payload's schema version. */
    public record NewEvent(String dedupeKey, String messageKey, JsonNode payload, int schemaVersion) {
    }

    /**
     * Queues many events of one topic in the caller's transaction with one statement, in the order given; returns
     * how many were new (an event whose dedupe key was queued before is skipped, as by {@link #enqueue}).
     */
    public static int enqueueAll(Connection connection, Topic<String, JsonNode> topic, List<NewEvent> events)
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
        Database.afterCommit(WAKE_RELAYS);
        try (PreparedStatement statement = connection.prepareStatement(INSERT_EVENTS_IF_ABSENT)) {
            statement.setString(1, topic.name());
            statement.setArray(2, connection.createArrayOf("text", dedupeKeys));
            statement.setArray(3, connection.createArrayOf("text", messageKeys));
            statement.setArray(4, connection.createArrayOf("text", payloads));
            statement.setArray(5, connection.createArrayOf("text", headers));
            return statement.executeUpdate();
        }
    }

    private static ObjectNode headers(Topic<String, JsonNode> topic, String dedupeKey, int schemaVersion) {
        var headers = Json.object();
        headers.put(Headers.SCHEMA_VERSION, Integer.toString(schemaVersion));
        headers.put(Headers.EVENT_ID, topic.name() + "/" + dedupeKey);
        return headers;
    }

    /**
     * Deletes sent rows older than {@code retention} among the oldest {@code window} rows, in the caller's
     * transaction; returns how many.
     */
    public static int pruneSent(Connection connection, Duration retention, int window) throws SQLException {
        try (PreparedStatement prune = connection.prepareStatement(PRUNE_SENT)) {
            prune.setInt(1, window);
            prune.setLong(2, retention.toMillis());
            return prune.executeUpdate();
        }
    }

    /** The events queued for one topic and key, oldest first (for tests and the operator CLI). */
    public static List<Map.Entry<String, JsonNode>> eventsFor(Connection connection, String topic,
                                                              String messageKey) throws SQLException {
        var events = new ArrayList<Map.Entry<String, JsonNode>>();
        try (PreparedStatement statement = connection.prepareStatement(SELECT_EVENTS_OF_KEY)) {
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
