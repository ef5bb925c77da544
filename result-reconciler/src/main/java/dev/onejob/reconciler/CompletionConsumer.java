package dev.onejob.reconciler;

import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.kafka.DeadLetters;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.service.Backoff;
import dev.onejob.core.service.Loops;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes {@code attempt-completions} as group {@code result-reconciler}, one thread, one consumer, one
 * transactional producer. Each poll is applied to the ledger as a set ({@link CompletionHandler#applyAll}: one
 * compare-and-swap statement for its successes, so a full poll costs a few round trips, not one transaction per
 * completion), and the ledger commits before anything else. A record that cannot be read, cannot be stored, names an
 * attempt the ledger does not know, or that PostgreSQL refuses for its data goes to {@code attempt-completions.dlq}
 * with the reason in {@code onejob-dlq-reason}.
 *
 * <p>The dead letters and the offsets go in a Kafka transaction that stays open across polls and commits every
 * {@link #COMMIT_INTERVAL} (as Kafka Streams commits), before a rebalance takes partitions away, and at shutdown:
 * offsets with {@code sendOffsetsToTransaction} and the group's metadata, so a member fenced by a rebalance cannot
 * commit them. Offsets are therefore committed only after the ledger's commits for every record they cover; a crash
 * before the Kafka commit replays those polls, which the ledger answers as already applied. Dead letters and offsets
 * are exactly once; the ledger's changes are idempotent. Results do not wait for the Kafka commit: they reach
 * {@code job-results} through the outbox, as soon as the ledger commits.
 *
 * <p>While PostgreSQL or the broker is away, the poll is read again after a backoff; the loop never dies of it.
 */
final class CompletionConsumer implements Loops.Loop {
    private static final Logger log = LoggerFactory.getLogger(CompletionConsumer.class);
    static final int MAX_POLL_RECORDS = 500;
    /** How long the Kafka transaction of the polls since the last commit stays open. */
    static final Duration COMMIT_INTERVAL = Duration.ofMillis(100);

    private final Consumer<byte[], byte[]> consumer;
    private final Producer<byte[], byte[]> producer;
    private final CompletionHandler handler;
    private final String groupId;
    private final long commitIntervalNanos;
    private final AtomicBoolean running = new AtomicBoolean(true);
    /** The open transaction: the next offset per partition it covers, and where each partition was when it began. */
    private final Map<TopicPartition, OffsetAndMetadata> uncommitted = new HashMap<>();
    private final Map<TopicPartition, Long> committedPositions = new HashMap<>();
    private long transactionStartedNanos;
    private boolean transactionOpen;
    /** Waits between rereads of a poll while PostgreSQL or the broker is away; only the poll thread touches it. */
    private final Backoff backoff = Backoff.standard();

    /** On the broker: {@code transactionalId} must be unique to this consumer and stable across its restarts. */
    static CompletionConsumer create(KafkaConfig kafka, String groupId, String clientId, String transactionalId,
                                     CompletionHandler handler) {
        Map<String, Object> consumerProps = kafka.consumer(groupId, clientId);
        consumerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        Map<String, Object> producerProps = kafka.producer(clientId + "-dlq");
        producerProps.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        // A predecessor that died mid-transaction holds the group's offsets unstable until this passes.
        producerProps.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 10_000);
        return new CompletionConsumer(new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(),
                new ByteArrayDeserializer()), new KafkaProducer<>(producerProps, new ByteArraySerializer(),
                new ByteArraySerializer()), handler, groupId, COMMIT_INTERVAL);
    }

    /**
     * Over given Kafka clients (Kafka's {@code MockConsumer} and a transactional {@code MockProducer} in the loop's
     * tests), which this loop owns and closes.
     */
    CompletionConsumer(Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer,
                       CompletionHandler handler, String groupId, Duration commitInterval) {
        this.consumer = consumer;
        this.producer = producer;
        this.handler = handler;
        this.groupId = groupId;
        this.commitIntervalNanos = commitInterval.toNanos();
    }

    @Override
    public void run() {
        try {
            producer.initTransactions();
            consumer.subscribe(List.of(Topics.ATTEMPT_COMPLETIONS.name()), new CommitBeforeRevoke());
            while (running.get()) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(pollTimeout());
                if (!records.isEmpty()) {
                    handleOrRewind(records);
                }
                commitIfDue();
            }
            commitOrRewind();
        } catch (WakeupException e) {
            if (running.get()) {
                throw e;
            }
            commitOrRewind();
        } catch (RuntimeException e) {
            log.error("event=consumer_stopped group={} error={}", groupId, e.toString(), e);
            throw e;
        } finally {
            consumer.close(Duration.ofSeconds(5));
            producer.close(Duration.ofSeconds(5));
        }
    }

    /** Until the open transaction is due, at most 200 ms. */
    private Duration pollTimeout() {
        if (!transactionOpen) {
            return Duration.ofMillis(200);
        }
        long left = transactionStartedNanos + commitIntervalNanos - System.nanoTime();
        return Duration.ofNanos(Math.max(0, Math.min(left, Duration.ofMillis(200).toNanos())));
    }

    /** Commits the open transaction once it has been open for the commit interval. */
    void commitIfDue() {
        if (transactionOpen && System.nanoTime() - transactionStartedNanos >= commitIntervalNanos) {
            commitOrRewind();
        }
    }

    /**
     * Handles a poll; when PostgreSQL fails for a reason that may pass, rewinds to the poll's first records (the
     * polls before it in the open transaction stand: the ledger committed them) and waits before reading it again.
     */
    void handleOrRewind(ConsumerRecords<byte[], byte[]> records) {
        try {
            handle(records);
            backoff.reset();
        } catch (DatabaseException e) {
            for (TopicPartition partition : records.partitions()) {
                if (consumer.assignment().contains(partition)) {
                    consumer.seek(partition, records.records(partition).get(0).offset());
                }
            }
            waitAfter(e.getMessage());
        }
    }

    private void waitAfter(String error) {
        Duration wait = backoff.next();
        log.warn("event=poll_retry group={} error=\"{}\" failures={} action=rewind_and_retry_in_{}ms", groupId,
                error, backoff.failures(), wait.toMillis());
        try {
            Thread.sleep(wait.toMillis());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void handle(ConsumerRecords<byte[], byte[]> records) {
        List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>(records.count());
        records.forEach(all::add);
        addToTransaction(all, CompletionRecords.applyAll(all, handler));
    }

    /** The poll's dead letters and offsets join the open transaction (begun if none is), after the ledger's commit. */
    private void addToTransaction(List<ConsumerRecord<byte[], byte[]>> all, String[] reasons) {
        for (ConsumerRecord<byte[], byte[]> record : all) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            committedPositions.putIfAbsent(partition, record.offset());
            uncommitted.merge(partition, new OffsetAndMetadata(record.offset() + 1),
                    (a, b) -> a.offset() >= b.offset() ? a : b);
        }
        try {
            if (!transactionOpen) {
                producer.beginTransaction();
                transactionOpen = true;
                transactionStartedNanos = System.nanoTime();
            }
            for (int i = 0; i < all.size(); i++) {
                if (reasons[i] != null) {
                    ConsumerRecord<byte[], byte[]> record = all.get(i);
                    log.warn("event=dead_lettered topic={} partition={} offset={} reason=\"{}\"", record.topic(),
                            record.partition(), record.offset(), reasons[i]);
                    producer.send(DeadLetters.letter(Topics.ATTEMPT_COMPLETIONS_DLQ, record, reasons[i]));
                }
            }
        } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException
                 | UnsupportedVersionException e) {
            throw e;
        } catch (KafkaException e) {
            abortAndRewind(e);
        }
    }

    /**
     * Commits the open transaction; when the broker refuses (a rebalance moved the partitions and the group's
     * generation fences the offsets, or the broker is away), aborts it and reads its polls again from where it began,
     * on the partitions still ours. The ledger answers them as already applied.
     */
    void commitOrRewind() {
        if (!transactionOpen) {
            return;
        }
        try {
            producer.sendOffsetsToTransaction(new HashMap<>(uncommitted), consumer.groupMetadata());
            producer.commitTransaction();
            transactionOpen = false;
            uncommitted.clear();
            committedPositions.clear();
        } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException
                 | UnsupportedVersionException e) {
            // This producer can do nothing more: the loop dies, /health says so, and the service is restarted.
            throw e;
        } catch (KafkaException e) {
            abortAndRewind(e);
        }
    }

    private void abortAndRewind(KafkaException cause) {
        abortOpenTransaction("the completions");
        for (Map.Entry<TopicPartition, Long> start : committedPositions.entrySet()) {
            if (consumer.assignment().contains(start.getKey())) {
                consumer.seek(start.getKey(), start.getValue());
            }
        }
        uncommitted.clear();
        committedPositions.clear();
        waitAfter("the Kafka transaction did not commit: " + cause);
    }

    /** Aborts the open transaction, if one is open; {@code of} says whose, for the error when the abort fails. */
    private void abortOpenTransaction(String of) {
        if (transactionOpen) {
            try {
                producer.abortTransaction();
            } catch (KafkaException abortFailed) {
                throw new IllegalStateException("cannot abort the Kafka transaction of " + of + ": " + abortFailed,
                        abortFailed);
            }
            transactionOpen = false;
        }
    }

    /** Commits what the open transaction holds before a rebalance gives its partitions to another member. */
    private final class CommitBeforeRevoke implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            commitOrRewind();
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            // Another member may own them already: these offsets must not be committed; the owner replays them.
            if (transactionOpen) {
                abortOpenTransaction("lost partitions");
                uncommitted.clear();
                committedPositions.clear();
            }
        }
    }

    @Override
    public void close() {
        running.set(false);
        consumer.wakeup();
    }
}
