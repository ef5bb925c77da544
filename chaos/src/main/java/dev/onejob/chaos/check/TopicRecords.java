package dev.onejob.chaos.check;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.chaos.check.RunRecord.AttemptCommand;
import dev.onejob.chaos.check.RunRecord.Completion;
import dev.onejob.chaos.check.RunRecord.DeadLetter;
import dev.onejob.chaos.check.RunRecord.JobResult;
import dev.onejob.chaos.check.RunRecord.RaceAudit;
import dev.onejob.chaos.check.RunRecord.RequestOutcome;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Turns raw topic records into the {@link RunRecord}'s records, reading only the fields the checks need (the event
 * schemas in the schema module's {@code events/} say what each field is). A record that cannot be read is kept as
 * "topic/partition/offset: why" in {@link #unreadable()}, never skipped silently. Ids are lower-cased UUID text.
 */
final class TopicRecords {
    /** The header ingest-service puts the dead-letter reason in (its Headers.DLQ_REASON). */
    /** Where the poison record was: {@code topic/partition/offset} (Headers.DLQ_SOURCE). */
    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private final List<String> unreadable = new ArrayList<>();

    List<String> unreadable() {
        return unreadable;
    }

    /** Each record read by {@code reader}; one that throws {@link IllegalArgumentException} is unreadable. */
    <T> List<T> read(List<ConsumerRecord<byte[], byte[]>> records, Function<JsonNode, T> reader) {
        List<T> read = new ArrayList<>(records.size());
        for (ConsumerRecord<byte[], byte[]> record : records) {
            try {
                read.add(reader.apply(json(record)));
            } catch (IllegalArgumentException e) {
                unreadable.add(record.topic() + "/" + record.partition() + "/" + record.offset() + ": "
                        + e.getMessage());
            }
        }
        return read;
    }

    static RequestOutcome outcome(JsonNode v) {
        return new RequestOutcome(optional(v, "request_id"), optional(v, "owner_id"), optional(v, "idempotency_key"),
                required(v, "outcome"), id(optional(v, "job_id")));
    }

    static JobResult result(JsonNode v) {
        return new JobResult(id(required(v, "job_id")), optional(v, "owner_id"), optional(v, "idempotency_key"),
                required(v, "status"), id(optional(v, "completed_by")), v.get("result"));
    }

    static RaceAudit raceAudit(JsonNode v) {
        JsonNode winner = v.path("winning_attempt");
        return new RaceAudit(id(required(v, "job_id")), winner.isObject() ? id(required(winner, "attempt_id")) : null,
                id(required(v.path("losing_attempt"), "attempt_id")), optional(v, "reason"));
    }

    static Completion completion(JsonNode v) {
        JsonNode result = v.get("result");
        return new Completion(id(required(v, "attempt_id")), id(required(v, "job_id")), required(v, "outcome"),
                result == null || result.isNull() ? null : result);
    }

    static AttemptCommand command(JsonNode v) {
        return new AttemptCommand(id(required(v, "attempt_id")), id(optional(v, "job_id")));
    }

    /** A dead letter is read from its key and headers only: its value is the poison, unreadable by design. */
    static List<DeadLetter> deadLetters(List<ConsumerRecord<byte[], byte[]>> records) {
        return records.stream().map(r -> new DeadLetter(r.key() == null ? null
                : new String(r.key(), StandardCharsets.UTF_8), header(r, Headers.DLQ_REASON), header(r, Headers.DLQ_SOURCE)))
                .toList();
    }

    /** Lower-cases UUID text, so ids join whatever case a producer wrote them in; other text is kept as it is. */
    static String id(String text) {
        return text != null && UUID_TEXT.matcher(text).matches() ? text.toLowerCase(Locale.ROOT) : text;
    }

    private static JsonNode json(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            throw new IllegalArgumentException("no value (a tombstone)");
        }
        try {
            JsonNode value = Json.MAPPER.readTree(record.value());
            if (value == null || !value.isObject()) {
                throw new IllegalArgumentException("the value is not a JSON object");
            }
            return value;
        } catch (IOException e) {
            throw new IllegalArgumentException("the value is not JSON: " + e.getMessage(), e);
        }
    }

    private static String required(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException("'" + field + "' is missing or not a string");
        }
        return value.asText();
    }

    private static String optional(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
