package dev.onejob.ingest.kafka;

import dev.onejob.core.events.AttemptChunk;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of this instance's subscriptions that follow a topic live: every partition, assigned (no consumer group,
 * nothing committed), read from the end. Two exist: {@link #jobResults} wakes a request waiting on a job anywhere in
 * this instance the moment the job's result is published; {@link #attemptChunks} hands the drop-in streams the pieces
 * of answer they relay. The consumer is passed in (a {@code MockConsumer} in a unit test) and used by this thread
 * alone.
 */
public final class TopicTail implements Runnable, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TopicTail.class);

    private final org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer;
    private final String topic;
    private final Duration poll;
    private final Consumer<List<ConsumerRecord<String, byte[]>>> onRecords;
    private volatile boolean running = true;

    public TopicTail(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer, String topic,
                     Duration poll, Consumer<List<ConsumerRecord<String, byte[]>>> onRecords) {
        this.consumer = consumer;
        this.topic = topic;
        this.poll = poll;
        this.onRecords = onRecords;
    }

    /** {@code job-results}: the ids of the jobs just finished go to {@code onFinished}. */
    public static TopicTail jobResults(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer,
                                       Consumer<Collection<UUID>> onFinished) {
        return new TopicTail(consumer, Topics.JOB_RESULTS.name(), Duration.ofMillis(500), records -> {
            List<UUID> finished = new ArrayList<>();
            records.forEach(record -> jobId(record.key()).ifPresent(finished::add));
            if (!finished.isEmpty()) {
                onFinished.accept(finished);
            }
        });
    }

    /**
     * {@code attempt-chunks}: the pieces of streamed answers go to {@code onChunks}, in order. A record that cannot be
     * read is skipped with a warning: a piece is a live view, and its stream falls back on the stored result.
     */
    public static TopicTail attemptChunks(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer,
                                          Consumer<List<AttemptChunk>> onChunks) {
        return new TopicTail(consumer, Topics.ATTEMPT_CHUNKS.name(), Duration.ofMillis(100), records -> {
            List<AttemptChunk> chunks = new ArrayList<>();
            for (ConsumerRecord<String, byte[]> record : records) {
                try {
                    chunks.add(AttemptChunk.fromJson(Json.parse(new String(record.value(), StandardCharsets.UTF_8))));
                } catch (RuntimeException e) {
                    log.warn("event=chunk_unreadable partition={} offset={} error={}", record.partition(),
                            record.offset(), e.toString());
                }
            }
            if (!chunks.isEmpty()) {
                onChunks.accept(chunks);
            }
        });
    }

    @Override
    public void run() {
        try {
            while (running) {
                if (consumer.assignment().isEmpty() && !assign()) {
                    sleep(Duration.ofSeconds(1));
                    continue;
                }
                try {
                    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
                    consumer.poll(poll).forEach(records::add);
                    if (!records.isEmpty()) {
                        onRecords.accept(records);
                    }
                } catch (WakeupException e) {
                    throw e;
                } catch (RuntimeException e) {
                    // The waiters' rechecks carry on without us; try again after a pause.
                    log.warn("event=topic_tail_poll_failed topic={} error={}", topic, e.toString());
                    sleep(Duration.ofSeconds(1));
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close(Duration.ofSeconds(2));
        }
    }

    /** Assigns every partition at its end; false while the topic's partitions cannot be read. */
    public boolean assign() {
        try {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(5));
            if (infos == null || infos.isEmpty()) {
                return false;
            }
            List<TopicPartition> partitions = infos.stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            // Resolve the end offsets now: a result published after this moment is one we will read.
            partitions.forEach(consumer::position);
            log.info("event=topic_tail_subscribed topic={} partitions={}", topic, partitions.size());
            return true;
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            log.warn("event=topic_tail_subscribe_failed topic={} error={}", topic, e.toString());
            consumer.unsubscribe();
            return false;
        }
    }

    private static Optional<UUID> jobId(String key) {
        try {
            return key == null ? Optional.empty() : Optional.of(UUID.fromString(key));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private void sleep(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
    }
}
