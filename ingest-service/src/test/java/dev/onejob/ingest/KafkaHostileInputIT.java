package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.events.JobRequestOutcome;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonSchemas;
import dev.onejob.core.kafka.Topics;
import dev.onejob.testing.CountingServer;
import dev.onejob.testing.TestDatabase;
import dev.onejob.testing.TopicProbe;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Hostile records on {@code job-requests}: nesting 10 000 deep, a 300-character owner, a 256-character key, a key
 * with a control character, an owner that is not the record key, a tombstone, arrays where objects belong, 1 000
 * headers, variables over the contract's limit, a passthrough output schema that refers to a remote schema (never
 * fetched: the answer names the reference). Each gets exactly one INVALID answer (valid by its schema, pointing
 * at the record), the unreadable ones are dead-lettered with their bytes and a reason, none writes a job, and a
 * valid request behind them on the same partition is CREATED: the consumer does not stall.
 */
class KafkaHostileInputIT {
    private static final IngestFixture INGEST = IngestFixture.shared();
    private static final JobRequestPublisher UPSTREAM = new JobRequestPublisher(INGEST.bootstrap);
    private static final CountingServer REMOTE_SCHEMAS = CountingServer.start();
    private static final JsonSchemas OUTCOME_SCHEMA =
            JsonSchemas.fromClasspath("events/job-request-outcome.v2.schema.json");
    private static final String MALFORMED = ApiDocument.PROBLEM_BASE + "malformed-record";
    private static final String INVALID = ApiDocument.PROBLEM_BASE + "invalid-request";

    @AfterAll
    static void closeProducerAndServer() {
        UPSTREAM.close();
        REMOTE_SCHEMAS.close();
    }

    @Test
    void hostileRecordsAreAnsweredInvalidOnceWriteNoJobAndDoNotStallTheConsumer() {
        // given hostile records, published in order to one partition, and a valid request behind them
        String run = "hostile-" + UUID.randomUUID();
        List<JobRequestPublisher.Hostile> hostile = hostileRecords(run);
        Map<String, RecordMetadata> published = new LinkedHashMap<>();
        for (JobRequestPublisher.Hostile record : hostile) {
            published.put(record.requestId(), UPSTREAM.publish(record));
        }
        String validKey = run + "-valid";
        JobRequestPublisher.Hostile valid = new JobRequestPublisher.Hostile(validKey, "alice",
                JobRequestPublisher.envelope("alice", validKey, IngestFixture.request("after the storm")), 0, false);
        published.put(valid.requestId(), UPSTREAM.publish(valid));

        // when the ingest service has answered them all
        Map<String, List<ConsumerRecord<byte[], byte[]>>> answers = byRequestId(TopicProbe.await(INGEST.bootstrap,
                Topics.JOB_REQUEST_OUTCOMES.name(), r -> published.containsKey(requestIdIn(r)), published.size(),
                Duration.ofSeconds(60)), KafkaHostileInputIT::requestIdIn);
        Map<String, List<ConsumerRecord<byte[], byte[]>>> letters = byRequestId(TopicProbe.await(INGEST.bootstrap,
                Topics.JOB_REQUESTS_DLQ.name(), r -> published.containsKey(JobRequestPublisher.header(r,
                        "request_id")), (int) hostile.stream().filter(JobRequestPublisher.Hostile::deadLettered)
                        .count(), Duration.ofSeconds(30)), r -> JobRequestPublisher.header(r, "request_id"));

        // then each hostile record has one INVALID answer, the unreadable ones one dead letter, and no job
        for (JobRequestPublisher.Hostile record : hostile) {
            JsonNode answer = onlyAnswer(answers, record.requestId());
            assertEquals("INVALID", answer.path("outcome").asText(), record.requestId() + ": " + answer);
            assertTrue(answer.path("job_id").isNull(), record.requestId());
            assertEquals(record.deadLettered() ? MALFORMED : INVALID, answer.path("problem").path("type").asText(),
                    record.requestId() + ": " + answer);
            assertPointsAt(answer, published.get(record.requestId()));
            assertDeadLetter(record, letters.getOrDefault(record.requestId(), List.of()),
                    published.get(record.requestId()));
        }
        assertEquals(0, hostileJobs(run, validKey), "no hostile record wrote a job");
        String remoteRef = onlyAnswer(answers, run + "-remote-schema").path("problem").path("detail").asText();
        assertTrue(remoteRef.contains("/properties/mood/$ref is \"" + REMOTE_SCHEMAS.url("/mood.schema.json") + "\""),
                remoteRef);
        assertEquals(0, REMOTE_SCHEMAS.hits(), "the remote schema was never fetched");
        JsonNode created = onlyAnswer(answers, valid.requestId());
        assertEquals("CREATED", created.path("outcome").asText(), created.toString());
        assertEquals(created.path("job_id").asText(),
                INGEST.ledger.lookups().jobForKey("alice", validKey).orElseThrow().id().toString());
    }

    private static List<JobRequestPublisher.Hostile> hostileRecords(String run) {
        String owner300 = "o".repeat(300);
        String deep = "{\"contract\":\"sentiment\",\"variables\":{\"text\":" + HostileValues.DEEP_ARRAY
                + "},\"target\":\"primary\"}";
        String request = IngestFixture.request("x");
        String remoteSchema = "{\"contract\":\"passthrough\",\"target\":\"primary\",\"variables\":{\"messages\":"
                + "[{\"role\":\"user\",\"content\":\"x\"}],\"output_schema\":{\"type\":\"object\",\"properties\":"
                + "{\"mood\":{\"$ref\":\"" + REMOTE_SCHEMAS.url("/mood.schema.json") + "\"}}}}}";
        return List.of(
                poison(run + "-deep", "alice", JobRequestPublisher.envelope("alice", run + "-deep", deep)),
                poison(run + "-owner-300", owner300, JobRequestPublisher.envelope(owner300, run + "-o300", request)),
                poison(run + "-key-256", "alice", JobRequestPublisher.envelope("alice", run + "k".repeat(256
                        - run.length()), request)),
                poison(run + "-key-control", "alice", JobRequestPublisher.envelope("alice", run + "-ctl\\u0007",
                        request)),
                poison(run + "-owner-not-key", "bob", JobRequestPublisher.envelope("alice", run + "-mismatch",
                        request)),
                poison(run + "-tombstone", "alice", null),
                poison(run + "-array-value", "alice", "[" + JobRequestPublisher.envelope("alice", run + "-arr",
                        request) + "]"),
                poison(run + "-array-request", "alice", JobRequestPublisher.envelope("alice", run + "-arq", "["
                        + request + "]")),
                new JobRequestPublisher.Hostile(run + "-headers-poison", "alice", "{\"owner_id\":\"alice\",", 1000,
                        true),
                new JobRequestPublisher.Hostile(run + "-headers-invalid", "alice", JobRequestPublisher.envelope(
                        "alice", run + "-hdr", request.replace("sentiment", "no-such-contract")), 1000, false),
                new JobRequestPublisher.Hostile(run + "-variables-too-long", "alice", JobRequestPublisher.envelope(
                        "alice", run + "-long", IngestFixture.request("a".repeat(20_001))), 0, false),
                new JobRequestPublisher.Hostile(run + "-remote-schema", "alice", JobRequestPublisher.envelope(
                        "alice", run + "-remote", remoteSchema), 0, false));
    }

    private static JobRequestPublisher.Hostile poison(String requestId, String key, String value) {
        return new JobRequestPublisher.Hostile(requestId, key, value, 0, true);
    }

    private static JsonNode onlyAnswer(Map<String, List<ConsumerRecord<byte[], byte[]>>> answers, String requestId) {
        List<ConsumerRecord<byte[], byte[]>> found = answers.getOrDefault(requestId, List.of());
        assertEquals(1, found.size(), "exactly one answer for " + requestId);
        JsonNode answer = Json.parse(TopicProbe.text(found.get(0).value()));
        assertEquals(List.of(), OUTCOME_SCHEMA.violations(answer), answer.toString());
        assertEquals(Integer.toString(JobRequestOutcome.VERSION),
                JobRequestPublisher.header(found.get(0), "onejob-schema-version"));
        return answer;
    }

    private static void assertPointsAt(JsonNode answer, RecordMetadata record) {
        assertEquals(record.topic(), answer.path("source").path("topic").asText());
        assertEquals(record.partition(), answer.path("source").path("partition").asInt());
        assertEquals(record.offset(), answer.path("source").path("offset").asLong());
    }

    private static void assertDeadLetter(JobRequestPublisher.Hostile record,
                                         List<ConsumerRecord<byte[], byte[]>> letters, RecordMetadata source) {
        if (!record.deadLettered()) {
            assertEquals(0, letters.size(), record.requestId() + " is readable: no dead letter");
            return;
        }
        assertEquals(1, letters.size(), "one dead letter for " + record.requestId());
        ConsumerRecord<byte[], byte[]> letter = letters.get(0);
        String reason = JobRequestPublisher.header(letter, "onejob-dlq-reason");
        assertTrue(reason != null && !reason.isBlank(), record.requestId() + " has a reason");
        if (record.value() == null) {
            assertNull(letter.value(), "a tombstone stays a tombstone");
        } else {
            assertArrayEquals(record.value().getBytes(StandardCharsets.UTF_8), letter.value(), record.requestId());
        }
        assertTrue(letter.headers().toArray().length >= record.extraHeaders() + 2, "the original headers are kept");
        assertEquals(source.topic() + "/" + source.partition() + "/" + source.offset(),
                JobRequestPublisher.header(letter, "onejob-dlq-source"));
    }

    private static String requestIdIn(ConsumerRecord<byte[], byte[]> outcome) {
        try {
            return Json.parse(TopicProbe.text(outcome.value())).path("request_id").asText(null);
        } catch (IllegalArgumentException | NullPointerException e) {
            return null; // not an answer this test published a request for
        }
    }

    private static Map<String, List<ConsumerRecord<byte[], byte[]>>> byRequestId(
            List<ConsumerRecord<byte[], byte[]>> records,
            Function<ConsumerRecord<byte[], byte[]>, String> id) {
        Map<String, List<ConsumerRecord<byte[], byte[]>>> grouped = new LinkedHashMap<>();
        records.forEach(r -> grouped.computeIfAbsent(id.apply(r), k -> new ArrayList<>()).add(r));
        return grouped;
    }

    /** Jobs a hostile record of this run could have written: its keys, or an owner too long to be one. */
    private static long hostileJobs(String run, String validKey) {
        try (Connection connection = TestDatabase.shared().dataSource().getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT count(*) FROM jobs "
                     + "WHERE (idempotency_key LIKE ? AND idempotency_key <> ?) OR length(owner_id) > 255")) {
            statement.setString(1, run + "%");
            statement.setString(2, validKey);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
