package dev.onejob.reconciler;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.StorableText;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.service.Backoff;
import dev.onejob.core.service.Loops;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
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
 * completion), and the ledger commits first. Then one Kafka transaction carries the poll's dead letters (a record
 * that cannot be read, cannot be stored, names an attempt the ledger does not know, or that PostgreSQL refuses for
 * its data goes to {@code attempt-completions.dlq} with the reason in {@code onejob-dlq-reason}) together with the
 * poll's offsets ({@code sendOffsetsToTransaction} with the group's metadata, so a member fenced by a rebalance
 * cannot commit). A crash between the two commits replays the poll, which the ledger answers as already applied:
 * dead letters and offsets are exactly once, and the ledger's changes are idempotent.
 *
 * <p>While PostgreSQL or the broker is away, the poll is read again after a backoff; the loop never dies of it.
 */
final class CompletionConsumer implements Loops.Loop {
    private static final Logger log = LoggerFactory.getLogger(CompletionConsumer.class);
    static final int MAX_POLL_RECORDS = 500;

    private final Consumer<byte[], byte[]> consumer;
    private final Producer<byte[], byte[]> producer;
    private final CompletionHandler handler;
    private final String groupId;
    private final AtomicBoolean running = new AtomicBoolean(true);
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
                new ByteArraySerializer()), handler, groupId);
    }

    /**
     * Over given Kafka clients (Kafka's {@code MockConsumer} and a transactional {@code MockProducer} in the loop's
     * tests), which this loop owns and closes.
     */
    CompletionConsumer(Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer,
                       CompletionHandler handler, String groupId) {
        this.consumer = consumer;
        this.producer = producer;
        this.handler = handler;
        this.groupId = groupId;
    }

    @Override
    public void run() {
        try {
            producer.initTransactions();
            consumer.subscribe(List.of(Topics.ATTEMPT_COMPLETIONS.name()));
            while (running.get()) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                if (!records.isEmpty()) {
                    handleOrRewind(records);
                }
            }
        } catch (WakeupException e) {
            if (running.get()) {
                throw e;
            }
        } catch (RuntimeException e) {
            log.error("event=consumer_stopped group={} error={}", groupId, e.toString(), e);
            throw e;
        } finally {
            consumer.close(Duration.ofSeconds(5));
            producer.close(Duration.ofSeconds(5));
        }
    }

    /** Handles a poll; on a failure that may pass, rewinds to its first records and waits before reading it again. */
    void handleOrRewind(ConsumerRecords<byte[], byte[]> records) {
        try {
            handle(records);
            backoff.reset();
        } catch (DatabaseException | RecoverableKafkaFailure e) {
            Duration wait = backoff.next();
            log.warn("event=poll_retry group={} error=\"{}\" failures={} action=rewind_and_retry_in_{}ms", groupId,
                    e.getMessage(), backoff.failures(), wait.toMillis());
            for (TopicPartition partition : records.partitions()) {
                if (consumer.assignment().contains(partition)) {
                    consumer.seek(partition, records.records(partition).get(0).offset());
                }
            }
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void handle(ConsumerRecords<byte[], byte[]> records) {
        List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>(records.count());
        records.forEach(all::add);
        String[] reasons = new String[all.size()];
        List<AttemptCompletion> readable = new ArrayList<>(all.size());
        List<Integer> readableIndex = new ArrayList<>(all.size());
        for (int i = 0; i < all.size(); i++) {
            Object read = read(all.get(i));
            if (read instanceof AttemptCompletion completion) {
                readable.add(completion);
                readableIndex.add(i);
            } else {
                reasons[i] = (String) read;
            }
        }
        List<CompletionHandler.Applied> applied = handler.applyAll(readable);
        for (int k = 0; k < applied.size(); k++) {
            if (applied.get(k) instanceof CompletionHandler.Rejected rejected) {
                reasons[readableIndex.get(k)] = rejected.reason();
            }
        }
        commit(all, reasons);
    }

    /** The poll's dead letters and offsets in one Kafka transaction, after the ledger's commit. */
    private void commit(List<ConsumerRecord<byte[], byte[]>> all, String[] reasons) {
        try {
            producer.beginTransaction();
            for (int i = 0; i < all.size(); i++) {
                if (reasons[i] != null) {
                    ConsumerRecord<byte[], byte[]> record = all.get(i);
                    log.warn("event=dead_lettered topic={} partition={} offset={} reason=\"{}\"", record.topic(),
                            record.partition(), record.offset(), reasons[i]);
                    producer.send(deadLetter(record, reasons[i]));
                }
            }
            producer.sendOffsetsToTransaction(nextOffsets(all), consumer.groupMetadata());
            producer.commitTransaction();
        } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException
                 | UnsupportedVersionException e) {
            // This producer can do nothing more: the loop dies, /health says so, and the service is restarted.
            throw e;
        } catch (KafkaException e) {
            // A rebalance moved the partitions (the group's generation fences the offsets), or the broker is away:
            // abort, and read the poll again where it is still ours; the ledger answers it as already applied.
            try {
                producer.abortTransaction();
            } catch (KafkaException abortFailed) {
                throw new IllegalStateException("cannot abort the Kafka transaction of a poll: " + abortFailed,
                        abortFailed);
            }
            throw new RecoverableKafkaFailure("the poll's Kafka transaction did not commit: " + e, e);
        }
    }

    /** A completion, or why the record is dead-lettered before it reaches the ledger. */
    private static Object read(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            return "the record has no value";
        }
        AttemptCompletion completion;
        try {
            JsonNode tree = Json.MAPPER.readTree(record.value());
            Optional<String> unstorable = StorableText.problem(tree);
            if (unstorable.isPresent()) {
                return "the completion cannot be stored: " + unstorable.get();
            }
            completion = AttemptCompletion.fromJson(tree);
        } catch (IOException e) {
            return "the value is not valid JSON: " + e.getMessage().lines().findFirst().orElse("");
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        if (record.key() == null || !completion.jobId().toString().equals(new String(record.key(),
                StandardCharsets.UTF_8))) {
            return "the record key must be the job id " + completion.jobId();
        }
        return completion;
    }

    private static ProducerRecord<byte[], byte[]> deadLetter(ConsumerRecord<byte[], byte[]> record, String reason) {
        ProducerRecord<byte[], byte[]> letter = new ProducerRecord<>(Topics.ATTEMPT_COMPLETIONS_DLQ.name(), null,
                record.key(), record.value(), record.headers());
        letter.headers().add(Headers.DLQ_REASON, reason.getBytes(StandardCharsets.UTF_8));
        letter.headers().add(Headers.DLQ_SOURCE, (record.topic() + "/" + record.partition() + "/" + record.offset())
                .getBytes(StandardCharsets.UTF_8));
        letter.headers().add(Headers.DLQ_DETECTED_AT, Instant.now().toString().getBytes(StandardCharsets.UTF_8));
        return letter;
    }

    private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(List<ConsumerRecord<byte[], byte[]>> records) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            offsets.merge(new TopicPartition(record.topic(), record.partition()),
                    new OffsetAndMetadata(record.offset() + 1), (a, b) -> a.offset() >= b.offset() ? a : b);
        }
        return offsets;
    }

    /** The poll's Kafka transaction was aborted; reading the poll again is safe. */
    static final class RecoverableKafkaFailure extends RuntimeException {
        RecoverableKafkaFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    @Override
    public void close() {
        running.set(false);
        consumer.wakeup();
    }
}
