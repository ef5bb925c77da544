package dev.onejob.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.testing.Await;
import dev.onejob.testing.LoopThread;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The worker's poll loop over Kafka's own MockConsumer and MockProducer: commands it cannot read go to
 * {@code attempt-commands.dlq} with the reason, each alone; a command it can read but not run (a provider it does
 * not know) ends its attempt with a FAILED completion; their offsets are committed, with no ledger write and no
 * provider call. And a completion the broker refuses for a while is published once it takes it. (What it does
 * with good commands is {@code AttemptWorkerIT}'s, on the real broker.)
 */
class AttemptWorkerLoopTest {
    private static final TopicPartition PARTITION = new TopicPartition(Topics.ATTEMPT_COMMANDS.name(), 0);

    @Test
    void unreadableCommandsAreDeadLetteredOneByOneAnUnknownProviderFailsItsAttemptAndTheOffsetsAreCommitted()
            throws Exception {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        MockProducer<byte[], byte[]> deadLetters = new MockProducer<>(true, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        MockProducer<String, byte[]> completions = new MockProducer<>(true, null, new StringSerializer(),
                new ByteArraySerializer());
        AtomicInteger calls = new AtomicInteger();
        WorkerMetrics metrics = new WorkerMetrics();
        // The ledger's pool is never opened: a command the worker cannot act on must not reach PostgreSQL.
        AttemptWorker worker = new AttemptWorker(consumer, deadLetters, new Completions(completions, metrics, Duration.ofMillis(1)),
                new Ledger(Database.wrap(null)), Providers.load(Path.of("../config/providers.yaml"), Map.of()),
                Contracts.load(Path.of("../config/contracts")), (provider, contract, variables, attempt, sink) -> {
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

        long committed;
        try (LoopThread ignored = LoopThread.start("attempt-worker-under-test", worker)) {
            Await.until(Duration.ofSeconds(10), "three offsets committed", () -> committed(consumer) >= 3);
            committed = committed(consumer);
        }

        List<ProducerRecord<byte[], byte[]>> letters = deadLetters.history();
        assertEquals(2, letters.size(), "one dead letter per unreadable record");
        assertTrue(reason(letters.get(0)).startsWith("not a valid attempt command"), reason(letters.get(0)));
        assertTrue(reason(letters.get(1)).startsWith("not a valid attempt command"), reason(letters.get(1)));
        letters.forEach(l -> assertEquals(Topics.ATTEMPT_COMMANDS_DLQ.name(), l.topic()));
        assertEquals(3, committed, "the offsets of every record are committed");
        assertEquals(0, calls.get());
        assertEquals(1, completions.history().size(), "the command it cannot run ends its attempt");
        AttemptCompletion failed = AttemptCompletion.fromJson(
                Json.MAPPER.readTree(completions.history().get(0).value()));
        assertEquals(unknownProvider.attemptId(), failed.attemptId());
        assertEquals(AttemptCompletion.Outcome.FAILED, failed.outcome());
        assertEquals("unknown_provider", failed.error().code());
        assertFalse(failed.error().sent(), "nothing was sent to any provider");
        assertTrue(failed.error().message().contains("no-such-provider"), failed.error().message());
    }

    @Test
    void anOffsetCommitThatTimesOutDuringABrokerOutageDoesNotStopTheLoop() throws Exception {
        // given a consumer whose first commit times out (the broker is away past default.api.timeout.ms)
        AtomicInteger commits = new AtomicInteger();
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest") {
            @Override
            public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
                if (commits.incrementAndGet() == 1) {
                    throw new TimeoutException("Timeout of 60000ms expired before"
                            + " successfully committing offsets");
                }
                super.commitSync(offsets);
            }
        };
        MockProducer<byte[], byte[]> deadLetters = new MockProducer<>(true, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        WorkerMetrics metrics = new WorkerMetrics();
        AttemptWorker worker = new AttemptWorker(consumer, deadLetters, new Completions(new MockProducer<>(true, null,
                new StringSerializer(), new ByteArraySerializer()), metrics, Duration.ofMillis(1)),
                new Ledger(Database.wrap(null)), Providers.load(Path.of("../config/providers.yaml"), Map.of()),
                Contracts.load(Path.of("../config/contracts")), (provider, contract, variables, attempt, sink) -> {
                    throw new AssertionError("no provider may be called");
                }, 8, metrics);
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(PARTITION));
            consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
            consumer.addRecord(record(0, "{not json".getBytes(StandardCharsets.UTF_8)));
        });
        consumer.schedulePollTask(() -> consumer.addRecord(record(1, "{not json either".getBytes(
                StandardCharsets.UTF_8))));

        // when the loop runs through both polls
        long committed;
        boolean aliveAfterTheTimeout;
        try (LoopThread loop = LoopThread.start("attempt-worker-under-test", worker)) {
            Await.until(Duration.ofSeconds(10), "two offsets committed", () -> committed(consumer) >= 2);
            committed = committed(consumer);
            aliveAfterTheTimeout = loop.isAlive();
        }

        // then the loop lived through the timed-out commit, and the next commit covered both records
        assertTrue(aliveAfterTheTimeout, "the poll loop is still running");
        assertEquals(2, committed);
        assertEquals(2, deadLetters.history().size());
    }

    @Test
    void aCompletionTheBrokerRefusesManyTimesIsPublishedOnceItTakesIt() throws Exception {
        // given a broker that refuses the next 12 sends (more than the five tries the worker used to give up after)
        MockProducer<String, byte[]> producer = new MockProducer<>(false, null, new StringSerializer(),
                new ByteArraySerializer());
        Completions completions = new Completions(producer, new WorkerMetrics(), Duration.ofMillis(1));
        AttemptCompletion completion = new AttemptCompletion(UUID.randomUUID(), UUID.randomUUID(),
                AttemptCompletion.Outcome.SUCCEEDED, Json.parse("{\"sentiment\":\"positive\",\"summary\":\"s\"}"),
                null, null, "primary", "m", "req", 5, Instant.now());
        Thread broker = new Thread(() -> {
            // errorNext is true only when it failed a send that was waiting: counting those (not the history's size,
            // which a resend can grow between the check and the refusal) refuses exactly twelve sends
            int refused = 0;
            while (refused < 12) {
                if (producer.errorNext(new TimeoutException("broker away"))) {
                    refused++;
                }
                Thread.onSpinWait();
            }
            while (!producer.completeNext()) {
                Thread.onSpinWait();
            }
        });
        broker.start();

        // when it is published
        completions.publishAsync(completion).get(30, TimeUnit.SECONDS);
        broker.join(5_000);

        // then the thirteenth send went through, carrying the same completion
        assertEquals(13, producer.history().size());
        assertEquals(completion.attemptId(), AttemptCompletion.fromJson(Json.MAPPER.readTree(
                producer.history().get(12).value())).attemptId());
        completions.close();
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
