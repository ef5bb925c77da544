package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.events.JobRequestOutcome;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonSchemas;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.testing.TopicProbe;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class KafkaIngestIT {
    private static final IngestFixture INGEST = IngestFixture.shared();
    private static final KafkaProducer<byte[], byte[]> PRODUCER = new KafkaProducer<>(
            new KafkaConfig(INGEST.bootstrap).producer("test-upstream"), new ByteArraySerializer(),
            new ByteArraySerializer());

    @AfterAll
    static void closeProducer() {
        PRODUCER.close();
    }

    private static String requestId() {
        return "req-" + UUID.randomUUID();
    }

    private static void publish(String key, byte[] value, String requestId) {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(Topics.JOB_REQUESTS.name(),
                key == null ? null : key.getBytes(StandardCharsets.UTF_8), value);
        record.headers().add("request_id", requestId.getBytes(StandardCharsets.UTF_8));
        try {
            PRODUCER.send(record).get();
        } catch (Exception e) {
            throw new IllegalStateException("could not publish a job request", e);
        }
    }

    private static byte[] envelope(String owner, String key, String request) {
        String envelope = "{\"owner_id\":\"" + owner + "\",\"idempotency_key\":\"" + key + "\",\"request\":"
                + request + "}";
        return envelope.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theEnvelopeUpstreamServicesSendMatchesThePublishedSchema() {
        JsonNode valid = Json.parse(new String(envelope("alice", "k-1", IngestFixture.request("x")),
                StandardCharsets.UTF_8));
        assertEquals(List.of(), REQUEST_SCHEMA.violations(valid));
        assertTrue(!REQUEST_SCHEMA.violations(Json.parse("{\"owner_id\":\"alice\",\"request\":{}}")).isEmpty());
    }

    private static final JsonSchemas OUTCOME_SCHEMA =
            JsonSchemas.fromClasspath("events/job-request-outcome.v2.schema.json");
    private static final JsonSchemas REQUEST_SCHEMA = JsonSchemas.fromClasspath("events/job-request.v1.schema.json");

    /** The one answer for a request, checked against its published schema and version header. */
    private static JsonNode outcome(String requestId) {
        List<ConsumerRecord<byte[], byte[]>> found = TopicProbe.await(INGEST.bootstrap,
                Topics.JOB_REQUEST_OUTCOMES.name(),
                r -> TopicProbe.text(r.value()).contains("\"request_id\":\"" + requestId + "\""), 1,
                Duration.ofSeconds(30));
        assertEquals(1, found.size(), "exactly one answer for " + requestId);
        JsonNode answer = Json.parse(TopicProbe.text(found.get(0).value()));
        assertEquals(List.of(), OUTCOME_SCHEMA.violations(answer), answer.toString());
        assertEquals(Integer.toString(JobRequestOutcome.VERSION),
                header(found.get(0), "onejob-schema-version"));
        return answer;
    }

    @Test
    void theSameIntentOverHttpAndTwiceOverKafkaIsOneJob() {
        // given the intent submitted over HTTP
        String key = "intent-" + UUID.randomUUID();
        String request = IngestFixture.request("I loved it");
        String jobId = Json.parse(INGEST.submit(IngestFixture.ALICE, key, request).body()).path("id").asText();

        // when the same owner's upstream publishes it twice more, formatted differently
        String first = requestId();
        String second = requestId();
        publish("alice", envelope("alice", key, request), first);
        publish("alice", envelope("alice", key, Json.write(Json.parse(request))), second);

        // then both copies are answered REPLAYED with the HTTP job's id, and still only one job exists
        for (String requestId : List.of(first, second)) {
            JsonNode answer = outcome(requestId);
            assertEquals("REPLAYED", answer.path("outcome").asText(), answer.toString());
            assertEquals(jobId, answer.path("job_id").asText());
        }
        assertEquals(1, INGEST.ledger.lookups().jobForKey("alice", key).stream().count());
    }

    @Test
    void sameKeyDifferentPayloadOverKafkaIsAConflictAndTheJobIsUntouched() {
        String key = "conflict-" + UUID.randomUUID();
        String created = requestId();
        publish("alice", envelope("alice", key, IngestFixture.request("I loved it")), created);
        assertEquals("CREATED", outcome(created).path("outcome").asText());

        String changed = requestId();
        publish("alice", envelope("alice", key, IngestFixture.request("I hated it")), changed);

        JsonNode answer = outcome(changed);
        assertEquals("CONFLICT", answer.path("outcome").asText());
        assertEquals("https://onejob.dev/problems/idempotency-key-reused", answer.path("problem").path("type").asText());
        assertEquals("I loved it", INGEST.ledger.lookups().jobForKey("alice", key).orElseThrow().request()
                .path("variables").path("text").asText());
    }

    @Test
    void poisonRecordsGoToTheDeadLetterTopicWithReasonsAndTheValidOnesAroundThemAreProcessed() {
        // given valid requests interleaved with poison: invalid JSON, wrong types, 1 MiB of garbage, no key
        byte[] garbage = new byte[1024 * 1024];
        new Random(42).nextBytes(garbage);
        Map<String, byte[]> poison = Map.of(
                "invalid-json", "{\"owner_id\": \"alice\", ".getBytes(StandardCharsets.UTF_8),
                "wrong-types", "{\"owner_id\": 7, \"idempotency_key\": [], \"request\": \"x\"}".getBytes(StandardCharsets.UTF_8),
                "garbage", garbage,
                "missing-key", ("{\"owner_id\":\"alice\",\"request\":" + IngestFixture.request("x") + "}")
                        .getBytes(StandardCharsets.UTF_8));
        List<String> validIds = new ArrayList<>();
        Map<String, String> poisonIds = new HashMap<>();
        for (Map.Entry<String, byte[]> bad : poison.entrySet()) {
            String valid = requestId();
            publish("alice", envelope("alice", "ok-" + UUID.randomUUID(), IngestFixture.request("fine")), valid);
            validIds.add(valid);
            String poisonId = requestId();
            publish("alice", bad.getValue(), poisonId);
            poisonIds.put(bad.getKey(), poisonId);
        }

        // then every valid request was CREATED, every poison record answered INVALID and dead-lettered with a reason
        for (String valid : validIds) {
            assertEquals("CREATED", outcome(valid).path("outcome").asText());
        }
        for (Map.Entry<String, String> bad : poisonIds.entrySet()) {
            JsonNode answer = outcome(bad.getValue());
            assertEquals("INVALID", answer.path("outcome").asText(), bad.getKey());
            List<ConsumerRecord<byte[], byte[]>> letters = TopicProbe.await(INGEST.bootstrap,
                    Topics.JOB_REQUESTS_DLQ.name(), r -> bad.getValue().equals(header(r, "request_id")), 1,
                    Duration.ofSeconds(30));
            assertEquals(1, letters.size(), bad.getKey());
            String reason = header(letters.get(0), "onejob-dlq-reason");
            assertTrue(reason != null && !reason.isBlank(), bad.getKey());
            assertTrue(Arrays.equals(poison.get(bad.getKey()), letters.get(0).value()),
                    "the original bytes are kept: " + bad.getKey());
        }
    }

    @Test
    void aValidEnvelopeWithAnInvalidRequestIsAnsweredInvalidWithoutDeadLettering() {
        String id = requestId();
        publish("alice", envelope("alice", "inv-" + UUID.randomUUID(),
                "{\"contract\":\"sentiment\",\"variables\":{},\"target\":\"primary\"}"), id);
        JsonNode answer = outcome(id);
        assertEquals("INVALID", answer.path("outcome").asText());
        assertEquals("https://onejob.dev/problems/invalid-request", answer.path("problem").path("type").asText());
        assertTrue(answer.path("problem").path("errors").toString().contains("text"), answer.toString());
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
