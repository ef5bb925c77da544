package dev.onejob.core.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.onejob.core.db.Database;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** Sent outbox rows past the retention are deleted; unsent, parked and recent ones stay. Its own database. */
class OutboxPrunerIT {
    @AutoClose
    private static final TestDatabase DB = TestDatabase.createPrivate();
    private static final Database database = Database.wrap(DB.dataSource());

    @Test
    void sentRowsPastTheRetentionGoAndEverythingElseStays() {
        // given rows sent eight days ago (more than two windows of them), one sent now, one parked eight days ago and
        // one not sent yet, all of the oldest ones first in id order
        int old = 2 * OutboxPruner.WINDOW + 10;
        List<String> keys = new ArrayList<>();
        database.inTransaction(connection -> {
            for (int i = 0; i < old + 3; i++) {
                String key = "prune-" + i;
                keys.add(key);
                OutboxStore.enqueue(connection, Topics.JOB_RESULTS, key, key, Json.object().put("i", i), 1);
            }
            update(connection, "UPDATE outbox SET sent_at = now() - interval '8 days' WHERE dedupe_key = ANY (?)",
                    keys.subList(0, old));
            update(connection, "UPDATE outbox SET sent_at = now() WHERE dedupe_key = ANY (?)",
                    keys.subList(old, old + 1));
            update(connection, "UPDATE outbox SET parked_at = now() - interval '8 days', park_reason = 'too big' "
                    + "WHERE dedupe_key = ANY (?)", keys.subList(old + 1, old + 2));
            return null;
        });

        // when a round runs with a retention of seven days
        long deleted = new OutboxPruner(database, Duration.ofDays(7)).pruneOnce();

        // then every old sent row is gone, in several windows, and the recent, parked and unsent rows are there
        assertEquals(old, deleted);
        assertEquals(List.of(keys.get(old), keys.get(old + 1), keys.get(old + 2)), remainingKeys());
        assertEquals(0, new OutboxPruner(database, Duration.ofDays(7)).pruneOnce());
    }

    private static void update(Connection connection, String sql, List<String> keys) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setArray(1, connection.createArrayOf("text", keys.toArray()));
            statement.executeUpdate();
        }
    }

    private static List<String> remainingKeys() {
        return database.inTransaction(connection -> {
            List<String> keys = new ArrayList<>();
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT dedupe_key FROM outbox ORDER BY id");
                 ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    keys.add(rows.getString(1));
                }
            }
            return keys;
        });
    }
}
