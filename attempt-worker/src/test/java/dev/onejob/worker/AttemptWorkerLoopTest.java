package dev.onejob.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.LedgerStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The worker's poll loop over Kafka's own MockConsumer and MockProducer: commands it cannot act on go to
 * {@code attempt-commands.dlq} with the reason, each alone, and their offsets are committed, with no ledger write
 * and no provider call. (What it does with good commands is {@code AttemptWorkerIT}'s, on the real broker.)
 */
class AttemptWorkerLoopTest {
    private static final TopicPartition PARTITION = new TopicPartition(Topics.ATTEMPT_COMMANDS.name(), 0);

    @Test
    void unreadableAndUnknownCommandsAreDeadLetteredOneByOneAndTheirOffsetsCommitted() throws Exception {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        MockProducer<byte[], byte[]> deadLetters = new MockProducer<>(true, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        MockProducer<String, byte[]> completions = new MockProducer<>(true, null, new StringSerializer(),
                new ByteArraySerializer());
        AtomicInteger calls = new AtomicInteger();
        WorkerMetrics metrics = new WorkerMetrics();
        // The ledger's pool is never opened: a command the worker cannot act on must not reach PostgreSQL.
        AttemptWorker worker = new AttemptWorker(consumer, deadLetters, new Completions(completions, metrics),
                new LedgerStore(Database.wrap(null)), Providers.load(Path.of("../config/providers.yaml"), Map.of()),
                Contracts.load(Path.of("../config/contracts")), (provider, contract, variables, attempt) -> {
                    calls.incrementAndGet();
                    throw new AssertionError("no provider may be called");
                }, 8, metrics);
        AttemptCommand unknownProvider = new AttemptCommand(UUID.randomUUID(), UUID.randomUUID(), "alice", 1,
                "no-such-provider", 1, "sentiment", Json.parse("{\"variables\":{\"text\":\"x\"}}"), Instant.now());
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(PARTITION));
            consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
            consumer.addRecord(record(0, "{not json".getBytes(StandardCharsets.UTF_8)));
            consumer.addRecord(record(1, Json.write(unknownProvider.toJson()).getBytes(StandardCharsets.UTF_8)));
            consumer.addRecord(record(2, null));
        });

        Thread loop = new Thread(worker, "attempt-worker-under-test");
        loop.start();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (committed(consumer) < 3 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        long committed = committed(consumer);
        worker.close();
        loop.join(10_000);

        List<ProducerRecord<byte[], byte[]>> letters = deadLetters.history();
        assertEquals(3, letters.size(), "one dead letter per record");
        assertTrue(reason(letters.get(0)).startsWith("not a valid attempt command"), reason(letters.get(0)));
        assertEquals("unknown provider 'no-such-provider'", reason(letters.get(1)));
        assertTrue(reason(letters.get(2)).startsWith("not a valid attempt command"), reason(letters.get(2)));
        letters.forEach(l -> assertEquals(Topics.ATTEMPT_COMMANDS_DLQ.name(), l.topic()));
        assertEquals(3, committed, "the offsets of the dead-lettered records are committed");
        assertEquals(0, calls.get());
        assertEquals(0, completions.history().size(), "nothing completes for a command that never started");
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, byte[] value) {
        return new ConsumerRecord<>(PARTITION.topic(), PARTITION.partition(), offset,
                "job".getBytes(StandardCharsets.UTF_8), value);
    }

    private static long committed(MockConsumer<byte[], byte[]> consumer) {
        OffsetAndMetadata offset = consumer.committed(Set.of(PARTITION)).get(PARTITION);
        return offset == null ? 0 : offset.offset();
    }

    private static String reason(ProducerRecord<byte[], byte[]> letter) {
        return new String(letter.headers().lastHeader(Headers.DLQ_REASON).value(), StandardCharsets.UTF_8);
    }
}
