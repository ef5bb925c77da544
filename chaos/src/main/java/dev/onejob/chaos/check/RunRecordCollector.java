package dev.onejob.chaos.check;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.chaos.check.RunRecord.ProviderCall;
import dev.onejob.chaos.history.History;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.billing.Usage;
import dev.onejob.simulator.LedgerEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Gathers what a drained chaos run left behind into a {@link RunRecord}: the history file, the {@code jobs} and
 * {@code attempts} rows (plain JDBC, one snapshot), the checked topics read whole as read_committed, and the
 * simulators' ledger files (each the body of one simulator's {@code GET /_sim/ledger}, named
 * {@code ledger-<simulator>.json}). Owns no connection or client beyond one call. Call it after the drain:
 * anything still moving would show up as an anomaly.
 */
public final class RunRecordCollector {
    /** How long reading the topics to their end may take before the collection gives up. */
    public static final Duration TOPIC_READ_TIMEOUT = Duration.ofMinutes(2);

    private RunRecordCollector() {
    }

    /** {@code outcomeTopics}: where job requests were answered (the shared topic, and a producer's own). */
    public static RunRecord collect(DataSource database, KafkaConfig kafka, List<String> outcomeTopics,
                                    List<Path> ledgerFiles, Path historyFile) {
        try (Connection connection = database.getConnection()) {
            return collect(connection, kafka, outcomeTopics, ledgerFiles, historyFile);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the ledger tables: " + e.getMessage(), e);
        }
    }

    public static RunRecord collect(String jdbcUrl, String user, String password, KafkaConfig kafka,
                                    List<String> outcomeTopics, List<Path> ledgerFiles, Path historyFile) {
        try (Connection connection = DriverManager.getConnection(jdbcUrl, user, password)) {
            return collect(connection, kafka, outcomeTopics, ledgerFiles, historyFile);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the ledger tables at " + jdbcUrl + ": " + e.getMessage(), e);
        }
    }

    private static RunRecord collect(Connection connection, KafkaConfig kafka, List<String> outcomeTopics,
                                     List<Path> ledgerFiles, Path historyFile) throws SQLException {
        LedgerSnapshot ledger = LedgerSnapshot.read(connection);
        List<String> names = new ArrayList<>(outcomeTopics);
        names.addAll(List.of(Topics.JOB_RESULTS.name(), Topics.RACE_AUDIT.name(),
                Topics.ATTEMPT_COMPLETIONS.name(), Topics.ATTEMPT_COMMANDS.name(), Topics.JOB_REQUESTS_DLQ.name()));
        Map<String, List<ConsumerRecord<byte[], byte[]>>> topics = TopicReader.readAll(kafka, names,
                TOPIC_READ_TIMEOUT);
        List<ConsumerRecord<byte[], byte[]>> outcomes = new ArrayList<>();
        outcomeTopics.forEach(topic -> outcomes.addAll(topics.get(topic)));
        TopicRecords read = new TopicRecords();
        return new RunRecord(History.read(historyFile), ledger.jobs(), ledger.attempts(),
                read.read(outcomes, TopicRecords::outcome),
                read.read(topics.get(Topics.JOB_RESULTS.name()), TopicRecords::result),
                read.read(topics.get(Topics.RACE_AUDIT.name()), TopicRecords::raceAudit),
                read.read(topics.get(Topics.ATTEMPT_COMPLETIONS.name()), TopicRecords::completion),
                read.read(topics.get(Topics.ATTEMPT_COMMANDS.name()), TopicRecords::command),
                TopicRecords.deadLetters(topics.get(Topics.JOB_REQUESTS_DLQ.name())),
                providerCalls(ledgerFiles), read.unreadable());
    }

    /** Every entry of every ledger file, each named after its file's simulator ({@code ledger-<simulator>.json}). */
    static List<ProviderCall> providerCalls(List<Path> ledgerFiles) {
        List<ProviderCall> calls = new ArrayList<>();
        for (Path file : ledgerFiles) {
            String simulator = file.getFileName().toString().replaceFirst("^ledger-", "")
                    .replaceFirst("\\.json$", "");
            JsonNode entries;
            try {
                entries = Json.MAPPER.readTree(Files.readString(file));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the simulator ledger " + file, e);
            }
            if (entries == null || !entries.isArray()) {
                throw new IllegalArgumentException("the simulator ledger " + file + " is not a JSON array");
            }
            for (JsonNode json : entries) {
                LedgerEntry entry = LedgerEntry.fromJson(json);
                calls.add(new ProviderCall(simulator, TopicRecords.id(entry.idempotencyKey()), entry.protocol(),
                        entry.status(), entry.behaviour(), entry.receivedAt(), entry.requestId(),
                        entry.isBilled() ? new Usage(entry.inputTokens(), entry.outputTokens(),
                                entry.cachedInputTokens()) : null, entry.isBilled() ? entry.costUsd() : null));
            }
        }
        return calls;
    }
}
