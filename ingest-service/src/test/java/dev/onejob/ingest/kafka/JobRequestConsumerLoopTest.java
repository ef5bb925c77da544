package dev.onejob.ingest.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.OwnerPolicies;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.events.Headers;
import dev.onejob.core.events.JobRequest;
import dev.onejob.core.events.JobRequestOutcome;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.JobRequests;
import dev.onejob.ingest.OwnerRateLimit;
import dev.onejob.ingest.ProviderCooldowns;
import dev.onejob.testing.Await;
import dev.onejob.testing.LoopThread;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
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
    private static final Contracts CONTRACTS = Contracts.load(Path.of("../config/contracts"));
    private static final Providers PROVIDERS = Providers.load(Path.of("../config/providers.yaml"), Map.of());

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());

    @Test
    void poisonAndInvalidRequestsAreAnsweredOneByOneAndTheirOffsetsCommitted() throws Exception {
        JobRequests requests = new JobRequests(CONTRACTS, PROVIDERS);
        // The ledger's pool is never opened: nothing here may reach PostgreSQL.
        JobRequestConsumer loop = new JobRequestConsumer(consumer, producer, new Ledger(Database.wrap(null)),
                requests, new IngestMetrics(), KafkaPrincipals.NONE, JobRequestConsumer.Brake.NONE);
        JobRequest unknownContract = new JobRequest("alice", "k-1", Json.parse(
                "{\"contract\":\"no-such-contract\",\"variables\":{\"text\":\"x\"},\"target\":\"primary\"}"));
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(PARTITION));
            consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
            consumer.addRecord(record(0, "alice", "{\"owner_id\":".getBytes(StandardCharsets.UTF_8)));
            consumer.addRecord(record(1, "alice", Json.write(unknownContract.toJson()).getBytes(StandardCharsets.UTF_8)));
        });

        long committed;
        try (LoopThread ignored = LoopThread.start("job-requests-under-test", loop)) {
            Await.until(Duration.ofSeconds(10), "both offsets committed", () -> committed(consumer) >= 2);
            committed = committed(consumer);
        }

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

    /**
     * With owners taken from principals: a record on a producer's own topic for an owner it is not mapped to, and
     * one on the shared topic, are answered REJECTED (owner-not-permitted) and reach no ledger; the permitted one is
     * validated as usual. Each answer goes where its producer reads: the producer's own outcomes topic, or the
     * shared one.
     */
    @Test
    void ownersComeFromTheProducersTopicAndOthersAreRejected() throws Exception {
        KafkaPrincipals principals = new KafkaPrincipals(KafkaPrincipals.OwnerFrom.PRINCIPAL,
                KafkaPrincipals.NONE.services(), List.of(), Map.of("shop", Set.of("alice")));
        TopicPartition shop = new TopicPartition(KafkaPrincipals.requestTopic("shop"), 0);
        Node node = new Node(0, "localhost", 9092);
        for (TopicPartition p : List.of(PARTITION, shop)) {
            consumer.updatePartitions(p.topic(), List.of(new PartitionInfo(p.topic(), 0, node, null, null)));
        }
        JobRequests requests = new JobRequests(CONTRACTS, PROVIDERS);
        JobRequestConsumer loop = new JobRequestConsumer(consumer, producer, new Ledger(Database.wrap(null)),
                requests, new IngestMetrics(), principals, JobRequestConsumer.Brake.NONE);
        // The permitted request names no contract the ingest knows, so it too is answered without the ledger.
        String unknownContract = "{\"contract\":\"no-such-contract\",\"variables\":{},\"target\":\"primary\"}";
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(PARTITION, shop));
            consumer.updateBeginningOffsets(Map.of(PARTITION, 0L, shop, 0L));
            consumer.addRecord(on(shop, 0, "alice", Json.write(new JobRequest("alice", "k-a",
                    Json.parse(unknownContract)).toJson())));
            consumer.addRecord(on(shop, 1, "bob", Json.write(new JobRequest("bob", "k-b",
                    Json.parse(unknownContract)).toJson())));
            consumer.addRecord(on(PARTITION, 0, "alice", Json.write(new JobRequest("alice", "k-c",
                    Json.parse(unknownContract)).toJson())));
        });

        try (LoopThread ignored = LoopThread.start("job-requests-under-test", loop)) {
            Await.until(Duration.ofSeconds(10), "three answers", () -> producer.history().size() >= 3);
        }

        Map<String, List<JobRequestOutcome>> byTopic = new TreeMap<>();
        for (ProducerRecord<byte[], byte[]> sent : producer.history()) {
            byTopic.computeIfAbsent(sent.topic(), t -> new ArrayList<>()).add(JobRequestOutcome.fromJson(
                    Json.parse(new String(sent.value(), StandardCharsets.UTF_8))));
        }
        assertEquals(Set.of(KafkaPrincipals.outcomesTopic("shop"), Topics.JOB_REQUEST_OUTCOMES.name()),
                byTopic.keySet(), "answers only, each on its producer's outcomes topic; nothing dead-lettered");
        List<JobRequestOutcome> shopAnswers = byTopic.get(KafkaPrincipals.outcomesTopic("shop"));
        assertEquals(List.of("INVALID", "REJECTED"), shopAnswers.stream().map(JobRequestOutcome::outcome).toList());
        assertTrue(shopAnswers.get(0).problem().type().endsWith("/invalid-request"), "alice's is validated");
        assertTrue(shopAnswers.get(1).problem().type().endsWith("/owner-not-permitted"));
        assertTrue(shopAnswers.get(1).problem().detail().contains("may not submit jobs for owner 'bob'"),
                shopAnswers.get(1).problem().detail());
        JobRequestOutcome shared = byTopic.get(Topics.JOB_REQUEST_OUTCOMES.name()).get(0);
        assertEquals("REJECTED", shared.outcome());
        assertTrue(shared.problem().detail().contains("publish to principal.<your user name>.job-requests"),
                shared.problem().detail());
    }

    private static ConsumerRecord<byte[], byte[]> on(TopicPartition partition, long offset, String key, String value) {
        return new ConsumerRecord<>(partition.topic(), partition.partition(), offset,
                key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
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

    /**
     * Over its owner's share ({@code RATE_LIMIT_PER_OWNER}, the bucket HTTP submissions draw on too), a record is not
     * answered: the loop commits its partition up to it, seeks back to it and pauses the partition until the bucket
     * has refilled, so the record and those behind it are read again then. Another owner's partition in the same poll
     * is served as usual. (MockConsumer drops records once polled, so the re-read itself is {@code KafkaPacingIT}'s.)
     */
    @Test
    void recordsOverTheOwnersShareWaitInTheirPartitionAndOthersAreServed() throws Exception {
        TopicPartition calmPartition = new TopicPartition(Topics.JOB_REQUESTS.name(), 1);
        OwnerRateLimit rate = new OwnerRateLimit(1);
        JobRequests requests = new JobRequests(CONTRACTS, PROVIDERS, OwnerPolicies.NONE, Clock.systemUTC(),
                ProviderCooldowns.NONE, rate);
        JobRequestConsumer loop = new JobRequestConsumer(consumer, producer, new Ledger(Database.wrap(null)),
                requests, new IngestMetrics(), KafkaPrincipals.NONE, JobRequestConsumer.Brake.NONE);
        // Requests that name no contract are answered INVALID without the ledger: what matters is who gets there.
        String unknownContract = "{\"contract\":\"no-such-contract\",\"variables\":{},\"target\":\"primary\"}";
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(PARTITION, calmPartition));
            consumer.updateBeginningOffsets(Map.of(PARTITION, 0L, calmPartition, 0L));
            for (int i = 0; i < 5; i++) {
                consumer.addRecord(record(i, "flood", Json.write(new JobRequest("flood", "k-" + i,
                        Json.parse(unknownContract)).toJson()).getBytes(StandardCharsets.UTF_8)));
            }
            consumer.addRecord(new ConsumerRecord<>(calmPartition.topic(), calmPartition.partition(), 0,
                    "calm".getBytes(StandardCharsets.UTF_8), Json.write(new JobRequest("calm", "k-c",
                    Json.parse(unknownContract)).toJson()).getBytes(StandardCharsets.UTF_8)));
        });

        long positionWhilePaused;
        Map<TopicPartition, OffsetAndMetadata> committed;
        try (LoopThread ignored = LoopThread.start("job-requests-under-test", loop)) {
            Await.until(Duration.ofSeconds(10), "flood's partition paused while its bucket refills",
                    () -> consumer.paused().contains(PARTITION));
            positionWhilePaused = consumer.position(PARTITION);
            Await.until(Duration.ofSeconds(10), "flood's partition resumed",
                    () -> !consumer.paused().contains(PARTITION));
            committed = consumer.committed(Set.of(PARTITION, calmPartition));
        }

        // a burst of twice the rate (2) passes; the third waits, unanswered, with the rest; calm has its own bucket
        List<JobRequestOutcome> answers = producer.history().stream()
                .map(r -> JobRequestOutcome.fromJson(Json.parse(new String(r.value(), StandardCharsets.UTF_8))))
                .toList();
        assertEquals(List.of("calm/k-c INVALID", "flood/k-0 INVALID", "flood/k-1 INVALID"), answers.stream()
                .map(a -> a.ownerId() + "/" + a.idempotencyKey() + " " + a.outcome()).sorted().toList());
        assertEquals(2, positionWhilePaused, "flood's partition is read again from its first record over the share");
        assertEquals(2, committed.get(PARTITION).offset(), "flood's partition is committed up to that record");
        assertEquals(1, committed.get(calmPartition).offset());
    }

    /**
     * While the brake is engaged (the workers' backlog over the intake's share) the loop reads nothing: its
     * partitions are paused and the records wait in Kafka, unanswered and uncommitted; released, it reads them.
     */
    @Test
    void whileTheBrakeIsEngagedRecordsWaitInKafka() throws Exception {
        JobRequests requests = new JobRequests(CONTRACTS, PROVIDERS);
        AtomicBoolean backlogged = new AtomicBoolean(true);
        AtomicInteger pausedPolls = new AtomicInteger();
        JobRequestConsumer loop = new JobRequestConsumer(consumer, producer, new Ledger(Database.wrap(null)),
                requests, new IngestMetrics(), KafkaPrincipals.NONE,
                () -> backlogged.get() ? Optional.of("backlog") : Optional.empty());
        consumer.schedulePollTask(() -> {
            consumer.rebalance(List.of(PARTITION));
            consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
            consumer.addRecord(record(0, "alice", "{\"owner_id\":".getBytes(StandardCharsets.UTF_8)));
        });
        for (int i = 0; i < 5; i++) {
            consumer.schedulePollTask(() -> {
                if (consumer.paused().contains(PARTITION)) {
                    pausedPolls.incrementAndGet();
                }
            });
        }

        try (LoopThread ignored = LoopThread.start("job-requests-under-test", loop)) {
            Await.until(Duration.ofSeconds(10), "five polls while paused",
                    () -> pausedPolls.get() >= 5);
            assertEquals(List.of(), producer.history(), "nothing answered while braking");
            assertEquals(0, committed(consumer), "nothing committed while braking");
            backlogged.set(false);
            Await.until(Duration.ofSeconds(10), "the record answered once released",
                    () -> committed(consumer) == 1);
        }
        assertEquals(1, producer.history().stream()
                .filter(r -> r.topic().equals(Topics.JOB_REQUEST_OUTCOMES.name())).count());
    }
}
