package dev.onejob.ingest.kafka;

import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.kafka.BrokerUnavailableException;
import dev.onejob.core.kafka.Groups;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.NewJob;
import dev.onejob.core.ledger.SubmitOutcome;
import dev.onejob.core.outbox.OutboxStore;
import dev.onejob.core.service.Backoff;
import dev.onejob.core.service.Loops;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.JobRequests;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes {@code job-requests} and every producer's {@code principal.<user>.job-requests} as group
 * {@code ingest-service}, one thread, one consumer. A record whose owner its topic's producer may not submit for
 * ({@link KafkaPrincipals#refusal}) is answered REJECTED and writes nothing. Each poll's valid
 * requests are submitted in one database transaction; then every record gets exactly one answer on
 * {@code job-request-outcomes}, or on its producer's {@code principal.<user>.job-request-outcomes} (CREATED,
 * REPLAYED, CONFLICT, INVALID, REJECTED), poison records also go to
 * {@code job-requests.dlq} with the reason and their original bytes; and only after the database commit and the
 * broker's acknowledgements are the offsets committed. A crash in between re-delivers the poll, which the ledger
 * answers as REPLAYED: duplicates are harmless, nothing is lost. A record whose owner is over its share
 * ({@code RATE_LIMIT_PER_OWNER}, the bucket its HTTP submissions draw on too) is not answered: its partition is read
 * again from it once the bucket has refilled ({@link PartitionHolds}), so a backlog is paced, never refused.
 */
public final class JobRequestConsumer implements Loops.Loop {
    private static final Logger log = LoggerFactory.getLogger(JobRequestConsumer.class);
    public static final String GROUP_ID = Groups.INGEST;

    private final Consumer<byte[], byte[]> consumer;
    private final Producer<byte[], byte[]> producer;
    private final Ledger ledger;
    private final JobRequests requests;
    private final IngestMetrics metrics;
    private final KafkaPrincipals principals;
    private final Brake brake;
    private final OutcomePublisher publisher;
    private final AtomicBoolean running = new AtomicBoolean(true);
    /** Whether the intake waits for the backlog now; only the poll thread touches it. */
    private boolean braking;
    /** Partitions paused until an owner's bucket has refilled; only the poll thread touches it. */
    private final PartitionHolds holds;
    /** Waits between rereads of a poll while PostgreSQL or the broker is away; only the poll thread touches it. */
    private final Backoff backoff = Backoff.standard();

    public JobRequestConsumer(KafkaConfig kafka, String clientId, Ledger ledger, JobRequests requests,
                              IngestMetrics metrics, KafkaPrincipals principals, Brake brake) {
        this(consumer(kafka, clientId), new KafkaProducer<>(kafka.producer(clientId + "-outcomes"),
                new ByteArraySerializer(), new ByteArraySerializer()), ledger, requests, metrics, principals, brake);
    }

    /** Why the intake should wait now (the workers' backlog), or empty; asked before every poll. */
    @FunctionalInterface
    public interface Brake {
        Brake NONE = Optional::empty;

        Optional<String> engaged();
    }

    /**
     * Over given Kafka clients (Kafka's {@code MockConsumer} and {@code MockProducer} in the loop's unit tests),
     * which this consumer owns and closes: the consumer of {@code job-requests} and the producer of its answers and
     * dead letters.
     */
    JobRequestConsumer(Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer, Ledger ledger,
                       JobRequests requests, IngestMetrics metrics, KafkaPrincipals principals, Brake brake) {
        this.brake = brake;
        this.consumer = consumer;
        this.holds = new PartitionHolds(consumer);
        this.producer = producer;
        this.publisher = new OutcomePublisher(producer, metrics);
        this.ledger = ledger;
        this.requests = requests;
        this.metrics = metrics;
        this.principals = principals;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaConfig kafka, String clientId) {
        Map<String, Object> props = kafka.consumer(GROUP_ID, clientId);
        props.put("max.poll.records", 500);
        // A producer's topic created while the service runs is found within this, not the default five minutes.
        props.put("metadata.max.age.ms", 30_000);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public void run() {
        try {
            consumer.subscribe(KafkaPrincipals.REQUEST_TOPICS, new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    holds.forget(partitions);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    // Inside the poll, before it returns records: partitions assigned while braking wait too.
                    if (braking) {
                        consumer.pause(partitions);
                    }
                }
            });
            while (running.get()) {
                applyBrake();
                holds.release(braking);
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) {
                    continue;
                }
                try {
                    handle(records);
                    backoff.reset();
                } catch (DatabaseException | BrokerUnavailableException e) {
                    // PostgreSQL or the broker is away: read the poll again later; the ledger answers what was
                    // already submitted as REPLAYED, so nothing is doubled and the consumer never dies of it.
                    Duration wait = backoff.next();
                    log.warn("event=poll_retry error=\"{}\" failures={} action=rewind_and_retry_in_{}ms",
                            e.getMessage(), backoff.failures(), wait.toMillis());
                    for (var partition : records.partitions()) {
                        consumer.seek(partition, records.records(partition).get(0).offset());
                    }
                    sleep(wait);
                }
            }
        } catch (WakeupException e) {
            if (running.get()) {
                throw e;
            }
        } catch (RuntimeException e) {
            log.error("event=consumer_stopped group={} error={}", GROUP_ID, e.toString(), e);
            throw e;
        } finally {
            consumer.close(Duration.ofSeconds(5));
            producer.close(Duration.ofSeconds(5));
        }
    }

    /**
     * Pauses every assigned partition while the workers' backlog is over the intake's share, and resumes them once it
     * is not: the records wait in Kafka (nothing is lost, nothing answered), and the poll keeps the group membership.
     * Partitions assigned while braking are paused as they are assigned (the rebalance listener).
     */
    private void applyBrake() {
        Optional<String> reason = brake.engaged();
        if (reason.isPresent()) {
            if (!braking) {
                consumer.pause(consumer.assignment());
                braking = true;
                metrics.kafkaIntakePaused(true);
                log.warn("event=kafka_intake_paused reason=\"{}\" action=records_wait_in_kafka", reason.get());
            }
        } else if (braking) {
            braking = false;
            consumer.resume(holds.notHeld(consumer.paused()));
            metrics.kafkaIntakePaused(false);
            log.info("event=kafka_intake_resumed");
        }
    }

    private void handle(ConsumerRecords<byte[], byte[]> records) {
        List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
        List<Object> answers = new ArrayList<>(records.count());
        List<NewJob> toSubmit = new ArrayList<>();
        List<Integer> submitIndex = new ArrayList<>();
        Map<TopicPartition, Long> heldFrom = new HashMap<>();
        long holdNanos = 0;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            if (heldFrom.containsKey(partition)) {
                continue; // after an over-share record: read again with it
            }
            int i = all.size();
            JobRequestRecords.Parsed parsed = JobRequestRecords.parse(record);
            Optional<String> refusal = parsed instanceof JobRequestRecords.Envelope envelope
                    ? principals.refusal(record.topic(), envelope.ownerId()) : Optional.empty();
            if (refusal.isPresent()) {
                var envelope = (JobRequestRecords.Envelope) parsed;
                answers.add(new JobRequestConsumerAnswers.NotPermitted(envelope.ownerId(), envelope.idempotencyKey(),
                        refusal.get()));
            } else if (parsed instanceof JobRequestRecords.Envelope envelope) {
                OptionalLong wait = requests.rateLimit().take(envelope.ownerId());
                if (wait.isPresent()) {
                    holdNanos = Math.max(holdNanos, holdFrom(heldFrom, record, envelope.ownerId(), wait.getAsLong()));
                    continue;
                }
                JobRequests.Validated validated = requests.validate(envelope.ownerId(), envelope.idempotencyKey(),
                        envelope.request());
                if (validated.isValid()) {
                    submitIndex.add(i);
                    toSubmit.add(validated.job());
                    answers.add(envelope);
                } else {
                    answers.add(new JobRequestConsumerAnswers.Invalid(envelope.ownerId(), envelope.idempotencyKey(),
                            validated.problems()));
                }
            } else {
                answers.add(parsed);
            }
            all.add(record);
        }
        List<SubmitOutcome> outcomes = toSubmit.isEmpty() ? List.of() : ledger.submissions().submitBatch(toSubmit);
        for (int j = 0; j < outcomes.size(); j++) {
            var envelope = (JobRequestRecords.Envelope) answers.get(submitIndex.get(j));
            SubmitOutcome outcome = outcomes.get(j);
            // A request PostgreSQL refused for its own data fails the same way on every replay: dead-letter it.
            answers.set(submitIndex.get(j), outcome instanceof SubmitOutcome.Refused refused
                    ? new JobRequestRecords.Poison(refused.reason(), envelope.ownerId(), envelope.idempotencyKey(),
                            envelope.requestId())
                    : new JobRequestConsumerAnswers.Submitted(envelope.ownerId(), envelope.idempotencyKey(),
                            outcome));
        }
        publisher.publish(all, answers);
        commit(all);
        if (!heldFrom.isEmpty()) {
            metrics.kafkaRecordsPaced(holds.hold(heldFrom, holdNanos));
        }
    }

    /** Over the owner's share: {@code record} and the rest of its partition wait in Kafka; the nanos to wait. */
    private static long holdFrom(Map<TopicPartition, Long> heldFrom, ConsumerRecord<byte[], byte[]> record,
                                 String owner, long seconds) {
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        heldFrom.put(partition, record.offset());
        log.info("event=kafka_owner_paced owner=\"{}\" partition={} offset={} wait_s={}", owner, partition,
                record.offset(), seconds);
        return Duration.ofSeconds(seconds).toNanos();
    }

    /** Commits the poll's offsets, after its answers are published; a refused or timed-out commit is redelivered. */
    private void commit(List<ConsumerRecord<byte[], byte[]>> all) {
        try {
            consumer.commitSync(nextOffsets(all));
        } catch (CommitFailedException | RebalanceInProgressException e) {
            // Out of the group past max.poll.interval.ms: the next poll rejoins, and these records come again to
            // whoever owns them now, where the ledger answers them REPLAYED.
            log.warn("event=commit_refused group={} reason=\"{}\" action=rejoin", GROUP_ID,
                    e.getClass().getSimpleName());
        } catch (TimeoutException e) {
            // The broker is away past the commit's timeout: poll on; the next commit covers these offsets, and a
            // redelivery in between is answered REPLAYED.
            log.warn("event=commit_timed_out group={} error=\"{}\" action=poll_on", GROUP_ID, e.getMessage());
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(List<ConsumerRecord<byte[], byte[]>> records) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            offsets.merge(new TopicPartition(record.topic(), record.partition()),
                    new OffsetAndMetadata(record.offset() + 1),
                    (a, b) -> a.offset() >= b.offset() ? a : b);
        }
        return offsets;
    }

    @Override
    public void close() {
        running.set(false);
        consumer.wakeup();
    }
}
