package dev.onejob.ingest.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.events.Headers;
import dev.onejob.core.events.JobRequest;
import dev.onejob.core.events.JobRequestOutcome;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.JobRequests;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The {@code job-requests} loop over Kafka's own MockConsumer and MockProducer: a poll of records that cannot
 * become jobs is answered record by record (a poison record dead-lettered with its reason and answered INVALID,
 * an invalid request answered INVALID), offsets committed, and the ledger never asked. Real-broker behaviour,
 * jobs created and replayed, is {@code KafkaIngestIT}'s.
 */
class JobRequestConsumerLoopTest {
    private static final TopicPartition PARTITION = new TopicPartition(Topics.JOB_REQUESTS.name(), 0);

    @Test
    void poisonAndInvalidRequestsAreAnsweredOneByOneAndTheirOffsetsCommitted() throws Exception {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        JobRequests requests = new JobRequests(Contracts.load(Path.of("../config/contracts")),
                Providers.load(Path.of("../config/providers.yaml"), Map.of()));
        // The ledger's pool is never opened: nothing here may reach PostgreSQL.
        JobRequestConsumer loop = new JobRequestConsumer(consumer, producer, new LedgerStore(Database.wrap(null)),
                requests, new IngestMetrics());
        JobRequest unknownContract = new JobRequest("alice", "k-1", Json.parse(
                "{\"contract\":\"no-such-contract\",\"variables\":{\"text\":\"x\"},\"target\":\"primary\"}"));
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(PARTITION));
            consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
            consumer.addRecord(record(0, "alice", "{\"owner_id\":".getBytes(StandardCharsets.UTF_8)));
            consumer.addRecord(record(1, "alice", Json.write(unknownContract.toJson()).getBytes(StandardCharsets.UTF_8)));
        });

        Thread thread = new Thread(loop, "job-requests-under-test");
        thread.start();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (committed(consumer) < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        long committed = committed(consumer);
        loop.close();
        thread.join(10_000);

        assertEquals(2, committed, "both offsets committed");
        List<ProducerRecord<byte[], byte[]>> sent = producer.history();
        List<ProducerRecord<byte[], byte[]>> letters = sent.stream()
                .filter(r -> r.topic().equals(Topics.JOB_REQUESTS_DLQ.name())).toList();
        List<JobRequestOutcome> answers = sent.stream()
                .filter(r -> r.topic().equals(Topics.JOB_REQUEST_OUTCOMES.name()))
                .map(r -> JobRequestOutcome.fromJson(Json.parse(new String(r.value(), StandardCharsets.UTF_8))))
                .toList();
        assertEquals(1, letters.size(), "only the poison record is dead-lettered");
        assertTrue(header(letters.get(0), Headers.DLQ_REASON).startsWith("the value is not valid JSON"));
        assertEquals(2, answers.size(), "one answer per record");
        assertEquals(List.of("INVALID", "INVALID"), answers.stream().map(JobRequestOutcome::outcome).toList());
        assertEquals(List.of(0L, 1L), answers.stream().map(a -> a.source().offset()).toList());
        assertTrue(answers.get(0).problem().type().endsWith("/malformed-record"));
        assertTrue(answers.get(1).problem().type().endsWith("/invalid-request"));
        assertEquals("k-1", answers.get(1).idempotencyKey());
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, String key, byte[] value) {
        return new ConsumerRecord<>(PARTITION.topic(), PARTITION.partition(), offset,
                key.getBytes(StandardCharsets.UTF_8), value);
    }

    private static long committed(MockConsumer<byte[], byte[]> consumer) {
        OffsetAndMetadata offset = consumer.committed(Set.of(PARTITION)).get(PARTITION);
        return offset == null ? 0 : offset.offset();
    }

    private static String header(ProducerRecord<byte[], byte[]> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
