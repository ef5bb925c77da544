package dev.onejob.worker;

import dev.onejob.core.certification.CertificationRequests;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.events.CertificationCommand;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.BrokerUnavailableException;
import dev.onejob.core.kafka.DeadLetters;
import dev.onejob.core.kafka.Groups;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.service.Loops;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Certification as the workers' work: consumes {@code certification-commands} as group {@link Groups#CERTIFIER}
 * (one command per poll, on a thread of its own beside the attempt loop), claims the request in
 * {@code certification_requests}, runs its golden calls with this worker's own provider clients, records every run
 * under the request's id and finishes the request; then commits the offset. A command delivered again finds its
 * request finished or claimed and calls nothing; a worker that dies mid-run leaves its claim to expire
 * ({@link CertificationRequests#CLAIM_LEASE}) and the command is delivered again. A record that does not read is
 * dead-lettered to {@code certification-commands.dlq} with the reason; a provider or contract this worker's files do
 * not know finishes the request with that error, running nothing.
 */
final class Certifications implements Loops.Loop {
    /** Runs one request's golden calls and records each run under its id; returns one line per run. */
    @FunctionalInterface
    interface Certifier {
        /**
         * @throws IllegalArgumentException naming the known ids when a provider or contract is not configured
         */
        List<String> certify(UUID requestId, Optional<String> provider, Optional<String> contract);
    }

    /** A certification of every pair takes minutes: a poll may wait this long before the group moves on. */
    static final int MAX_POLL_INTERVAL_MS = (int) Duration.ofMinutes(30).toMillis();

    /** How long to wait before reading a command again after PostgreSQL or the broker failed it. */
    static final Duration RETRY_PAUSE = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(Certifications.class);

    private final Consumer<byte[], byte[]> consumer;
    private final Producer<byte[], byte[]> deadLetters;
    private final CertificationRequests requests;
    private final Certifier certifier;
    private final String worker;
    private final AtomicBoolean running = new AtomicBoolean(true);

    Certifications(KafkaConfig kafka, String worker, CertificationRequests requests, Certifier certifier) {
        this(consumer(kafka, worker), new KafkaProducer<>(kafka.producer(worker + "-certification-dlq"),
                new ByteArraySerializer(), new ByteArraySerializer()), requests, certifier, worker);
    }

    /** Owns and closes {@code consumer} and {@code deadLetters}. */
    Certifications(Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> deadLetters,
                   CertificationRequests requests, Certifier certifier, String worker) {
        this.consumer = consumer;
        this.deadLetters = deadLetters;
        this.requests = requests;
        this.certifier = certifier;
        this.worker = worker;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaConfig kafka, String worker) {
        Map<String, Object> props = kafka.consumer(Groups.CERTIFIER, worker + "-certification");
        props.put("max.poll.records", 1);
        props.put("max.poll.interval.ms", MAX_POLL_INTERVAL_MS);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public void run() {
        try {
            consumer.subscribe(List.of(Topics.CERTIFICATION_COMMANDS.name()));
            while (running.get()) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                    try {
                        handle(record);
                    } catch (DatabaseException | BrokerUnavailableException e) {
                        // Read it again after a pause: this worker's own claim lets it run the request again.
                        log.warn("event=certification_retry request_offset={} error=\"{}\" action=retry_in={}",
                                record.offset(), e.toString(), RETRY_PAUSE);
                        consumer.seek(partition, record.offset());
                        pause();
                        continue;
                    }
                    consumer.commitSync(Map.of(partition, new OffsetAndMetadata(record.offset() + 1)));
                }
            }
        } catch (WakeupException e) {
            if (running.get()) {
                throw e;
            }
        } finally {
            consumer.close(Duration.ofSeconds(5));
            deadLetters.close(Duration.ofSeconds(5));
        }
    }

    /** One command: dead-lettered, skipped (finished or held elsewhere), or run and finished. */
    void handle(ConsumerRecord<byte[], byte[]> record) {
        CertificationCommand command;
        try {
            command = CertificationCommand.fromJson(Json.MAPPER.readTree(record.value()));
        } catch (IOException | IllegalArgumentException | NullPointerException e) {
            deadLetter(record, "not a valid certification command: " + e.getMessage());
            return;
        }
        UUID id = command.requestId();
        if (!requests.claim(id, worker)) {
            log.info("event=certification_skipped request={} reason=finished_or_claimed_elsewhere", id);
            return;
        }
        String error = null;
        try {
            for (String line : certifier.certify(id, command.provider(), command.contract())) {
                log.info("event=certified request={} {}", id, line);
            }
        } catch (IllegalArgumentException e) {
            error = e.getMessage();
            log.warn("event=certification_not_runnable request={} reason=\"{}\"", id, error);
        }
        if (!requests.finish(id, worker, error)) {
            log.warn("event=certification_claim_lost request={} action=none", id);
        }
    }

    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason) {
        DeadLetters.sendNow(deadLetters, Topics.CERTIFICATION_COMMANDS_DLQ, record, reason);
        log.warn("event=dead_lettered topic={} partition={} offset={} reason=\"{}\"", record.topic(),
                record.partition(), record.offset(), reason);
    }

    private void pause() {
        try {
            Thread.sleep(RETRY_PAUSE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.set(false);
        }
    }

    @Override
    public void close() {
        running.set(false);
        consumer.wakeup();
    }
}
