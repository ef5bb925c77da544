package dev.onejob.ingest.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.billing.OwnerLimits;
import dev.onejob.core.config.OwnerPolicies;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.events.JobRequest;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonSchemas;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.JobRequests;
import dev.onejob.testing.Await;
import dev.onejob.testing.TestDatabase;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * A job request its owner's limits refuse, over Kafka's MockConsumer and MockProducer and real PostgreSQL: answered
 * REJECTED with the reason (a version 2 job-request-outcome), its neighbour in the same poll created, both offsets
 * committed, and nothing written for the refused one.
 */
class JobRequestRejectedIT {
    private static final TopicPartition PARTITION = new TopicPartition(Topics.JOB_REQUESTS.name(), 0);
    private static final JsonSchemas OUTCOME = JsonSchemas.fromClasspath("events/job-request-outcome.v2.schema.json");

    @Test
    void aRequestOverItsOwnersCapIsRejectedAndItsNeighbourCreated() throws Exception {
        String broke = "broke-" + UUID.randomUUID();
        String free = "free-" + UUID.randomUUID();
        OwnerPolicies budgets = OwnerPolicies.of(OwnerLimits.NONE, Map.of(broke,
                new OwnerLimits(new BigDecimal("0.000001"), OwnerLimits.Period.MONTH, null)));
        JobRequests requests = new JobRequests(Contracts.load(Path.of("../config/contracts")),
                Providers.load(Path.of("../config/providers.yaml"), Map.of()), budgets, Clock.systemUTC());
        Ledger ledger = new Ledger(Database.wrap(TestDatabase.shared().dataSource()));
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        JobRequestConsumer loop = new JobRequestConsumer(consumer, producer, ledger, requests, new IngestMetrics(),
                KafkaPrincipals.NONE, JobRequestConsumer.Brake.NONE);
        JsonNode request = Json.parse("{\"contract\":\"sentiment\",\"variables\":{\"text\":\"x\"},"
                + "\"target\":\"primary\",\"fallbacks\":[\"backup\"]}");
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(PARTITION));
            consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
            consumer.addRecord(record(0, broke, new JobRequest(broke, "k-1", request)));
            consumer.addRecord(record(1, free, new JobRequest(free, "k-1", request)));
        });

        Thread thread = new Thread(loop, "job-requests-under-test");
        thread.start();
        Await.until(Duration.ofSeconds(20), "both offsets committed", () -> committed(consumer) >= 2);
        long committed = committed(consumer);
        loop.close();
        thread.join(10_000);

        assertEquals(2, committed);
        List<JsonNode> answers = producer.history().stream()
                .filter(r -> r.topic().equals(Topics.JOB_REQUEST_OUTCOMES.name()))
                .map(r -> Json.parse(new String(r.value(), StandardCharsets.UTF_8))).toList();
        assertEquals(2, answers.size());
        answers.forEach(a -> assertEquals(List.of(), OUTCOME.violations(a), a.toString()));
        JsonNode rejected = answers.get(0);
        assertEquals("REJECTED", rejected.path("outcome").asText());
        assertTrue(rejected.path("job_id").isNull());
        assertEquals("https://onejob.dev/problems/budget-exceeded", rejected.path("problem").path("type").asText());
        assertTrue(rejected.path("problem").path("detail").asText().contains("cap"), rejected.toString());
        assertEquals("CREATED", answers.get(1).path("outcome").asText());
        assertNull(ledger.lookups().jobForKey(broke, "k-1").orElse(null));
        assertTrue(ledger.lookups().jobForKey(free, "k-1").isPresent());
        List<ProducerRecord<byte[], byte[]>> letters = producer.history().stream()
                .filter(r -> r.topic().equals(Topics.JOB_REQUESTS_DLQ.name())).toList();
        assertEquals(0, letters.size(), "a refusal by a limit is an answer, not a dead letter");
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, String owner, JobRequest request) {
        return new ConsumerRecord<>(PARTITION.topic(), PARTITION.partition(), offset,
                owner.getBytes(StandardCharsets.UTF_8), Json.write(request.toJson()).getBytes(StandardCharsets.UTF_8));
    }

    private static long committed(MockConsumer<byte[], byte[]> consumer) {
        OffsetAndMetadata offset = consumer.committed(Set.of(PARTITION)).get(PARTITION);
        return offset == null ? 0 : offset.offset();
    }
}
