package dev.onejob.launcher.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.outbox.OutboxStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code outbox status}: how far the outbox relays are behind. Consumes the database (read-only); produces the
 * number of events not yet published, the age of the oldest, and both per topic. A growing backlog means no relay
 * is running (an ingest service with {@code OUTBOX_RELAY=true}) or Kafka refuses its transactions.
 */
@Command(name = "outbox", mixinStandardHelpOptions = true, description = "Look at the outbox.")
public record OutboxCommand(CliContext context) {
    private static final String UNSENT_PER_TOPIC = """
            SELECT topic, count(*) AS unsent, min(created_at) AS oldest
              FROM outbox
             WHERE sent_at IS NULL AND parked_at IS NULL
             GROUP BY topic
             ORDER BY topic""";

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = {"Shows the events written to the outbox but not yet published to Kafka: how many, how old"
                    + " the oldest is, per topic; and the events the broker refused (parked), with its reason.",
                "Reads the database directly, read-only (DATABASE_URL, DATABASE_USER, DATABASE_PASSWORD;"
                        + " default: the running ./onejob dev's)."})
    int status(@Option(names = "--json", description = "Print JSON: {unsent, oldest_unsent_age_ms, topics: {TOPIC:"
            + " {unsent, oldest_unsent_age_ms}}, parked, parked_events: [{id, topic, message_key, reason, parked_at}]};"
            + " ages are null when nothing waits.") boolean json) {
        ObjectNode status = ReadOnlyDatabase.fromEnv(context).read(OutboxCommand::read);
        if (json) {
            context.out().println(Json.write(status));
            return ExitCode.OK;
        }
        long parked = status.path("parked").asLong();
        if (parked > 0) {
            context.out().println("outbox: " + parked + " event(s) parked: the broker refused them for what they are"
                    + " (they are not retried)");
            Table table = new Table("id", "topic", "key", "parked at", "reason");
            status.path("parked_events").forEach(event -> table.row(event.path("id").asLong(),
                    event.path("topic").asText(), event.path("message_key").asText(), event.path("parked_at").asText(),
                    event.path("reason").asText()));
            context.out().print(table.render());
        }
        long unsent = status.path("unsent").asLong();
        if (unsent == 0) {
            context.out().println("outbox: nothing waiting, every event is published"
                    + (parked > 0 ? " (but for the parked ones)" : ""));
            return ExitCode.OK;
        }
        context.out().println("outbox: " + unsent + " event(s) waiting, the oldest for "
                + age(status.path("oldest_unsent_age_ms").asLong()));
        Table table = new Table("topic", "unsent", "oldest");
        status.path("topics").properties().forEach(topic -> table.row(topic.getKey(),
                topic.getValue().path("unsent").asLong(), age(topic.getValue().path("oldest_unsent_age_ms").asLong())));
        context.out().print(table.render());
        return ExitCode.OK;
    }

    private static ObjectNode read(Connection connection) throws SQLException {
        ObjectNode status = Json.object();
        status.put("unsent", OutboxStatus.countUnsent(connection));
        Duration oldest = OutboxStatus.oldestUnsentAge(connection);
        status.put("oldest_unsent_age_ms", oldest == null ? null : oldest.toMillis());
        status.put("parked", OutboxStatus.countParked(connection));
        var parkedEvents = status.putArray("parked_events");
        for (OutboxStatus.Parked parked : OutboxStatus.parked(connection, 20)) {
            parkedEvents.addObject().put("id", parked.id()).put("topic", parked.topic())
                    .put("message_key", parked.messageKey()).put("reason", parked.reason())
                    .put("parked_at", parked.parkedAt().toString());
        }
        ObjectNode topics = status.putObject("topics");
        try (PreparedStatement statement = connection.prepareStatement(UNSENT_PER_TOPIC);
             ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                Timestamp since = rows.getTimestamp("oldest");
                topics.putObject(rows.getString("topic")).put("unsent", rows.getLong("unsent"))
                        .put("oldest_unsent_age_ms", Duration.between(since.toInstant(), Instant.now()).toMillis());
            }
        }
        return status;
    }

    /** 850 ms, 12.3 s, 4 min 5 s, 2 h 3 min. */
    static String age(long millis) {
        if (millis < 1_000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        long seconds = millis / 1000;
        if (seconds < 3600) {
            return seconds / 60 + " min " + seconds % 60 + " s";
        }
        return seconds / 3600 + " h " + seconds % 3600 / 60 + " min";
    }
}
