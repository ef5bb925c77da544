package dev.onejob.core.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The operator's view of {@code outbox}, as {@code ./onejob outbox status} shows it: how many events are due and
 * unsent, how long the oldest has waited, and the rows parked because the broker refused them. Read-only, in the
 * caller's transaction.
 */
public final class OutboxStatus {
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

    /** One parked row, as {@code ./onejob outbox status} shows it. */
    public record Parked(long id, String topic, String messageKey, String reason, Instant parkedAt) {
    }

    private OutboxStatus() {
    }

    public static long countParked(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(COUNT_PARKED);
             ResultSet rows = statement.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** The oldest {@code limit} parked rows. */
    public static List<Parked> parked(Connection connection, int limit) throws SQLException {
        List<Parked> parked = new ArrayList<>();
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

    /** The age of the oldest unsent event, or null when none is waiting. */
    public static Duration oldestUnsentAge(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(OLDEST_UNSENT);
             ResultSet rows = statement.executeQuery()) {
            rows.next();
            Timestamp oldest = rows.getTimestamp(1);
            return oldest == null ? null : Duration.between(oldest.toInstant(), Instant.now());
        }
    }

    public static long countUnsent(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(COUNT_UNSENT);
             ResultSet rows = statement.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
