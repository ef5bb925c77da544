package dev.onejob.ingest.kafka;

import dev.onejob.core.kafka.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's one subscription to {@code job-results}: every partition, assigned (no consumer group, nothing
 * committed), read from the end, so that a request waiting on a job anywhere in this instance is woken the moment the
 * job's result is published. Consumes the record keys (job ids) only; produces them to {@code onFinished}. The
 * consumer is passed in (a {@code MockConsumer} in a unit test) and used by this thread alone.
 */
public final class JobResultsSubscription implements Runnable, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JobResultsSubscription.class);
    private static final Duration POLL = Duration.ofMillis(500);

    private final org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer;
    private final Consumer<Collection<UUID>> onFinished;
    private volatile boolean running = true;

    public JobResultsSubscription(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer,
                                  Consumer<Collection<UUID>> onFinished) {
        this.consumer = consumer;
        this.onFinished = onFinished;
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
                    List<UUID> finished = new ArrayList<>();
                    for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                        jobId(record.key()).ifPresent(finished::add);
                    }
                    if (!finished.isEmpty()) {
                        onFinished.accept(finished);
                    }
                } catch (WakeupException e) {
                    throw e;
                } catch (RuntimeException e) {
                    // The waiters' rechecks carry on without us; try again after a pause.
                    log.warn("event=job_results_poll_failed error={}", e.toString());
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
            List<PartitionInfo> infos = consumer.partitionsFor(Topics.JOB_RESULTS.name(), Duration.ofSeconds(5));
            if (infos == null || infos.isEmpty()) {
                return false;
            }
            List<TopicPartition> partitions = infos.stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            // Resolve the end offsets now: a result published after this moment is one we will read.
            partitions.forEach(consumer::position);
            log.info("event=job_results_subscribed partitions={}", partitions.size());
            return true;
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            log.warn("event=job_results_subscribe_failed error={}", e.toString());
            consumer.unsubscribe();
            return false;
        }
    }

    private static java.util.Optional<UUID> jobId(String key) {
        try {
            return key == null ? java.util.Optional.empty() : java.util.Optional.of(UUID.fromString(key));
        } catch (IllegalArgumentException e) {
            return java.util.Optional.empty();
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
