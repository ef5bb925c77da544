package dev.onejob.bench.loadgen;

import dev.onejob.core.kafka.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * Watches {@code job-results} as a read_committed consumer from the end of the topic (as it was when the watcher
 * started) and notes, per job id (the record key), when its first result arrived and how many arrived.
 */
final class ResultWatcher implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, Long> firstArrival = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Long>> waiting = new ConcurrentHashMap<>();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    ResultWatcher(String bootstrapServers) {
        consumer = TopicEnd.reader(bootstrapServers, Topics.JOB_RESULTS.name(), "bench-results-");
        thread = new Thread(this::run, "job-results-watcher");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (running.get()) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    long now = System.nanoTime();
                    String jobId = new String(record.key(), StandardCharsets.UTF_8);
                    if (firstArrival.putIfAbsent(jobId, now) != null) {
                        duplicates.incrementAndGet();
                    } else {
                        waiting.computeIfAbsent(jobId, id -> new CompletableFuture<>()).complete(now);
                    }
                }
            }
        } finally {
            consumer.close(Duration.ofSeconds(2));
        }
    }

    /** When the first result of this job arrived (System.nanoTime), or null. */
    Long arrival(String jobId) {
        return firstArrival.get(jobId);
    }

    /** Completes (with its System.nanoTime) when the first result of this job has arrived; at once if it has. */
    CompletableFuture<Long> arrived(String jobId) {
        CompletableFuture<Long> future = waiting.computeIfAbsent(jobId,
                id -> new CompletableFuture<>());
        Long already = firstArrival.get(jobId);
        if (already != null) {
            future.complete(already);
        }
        return future;
    }

    long duplicates() {
        return duplicates.get();
    }

    @Override
    public void close() {
        running.set(false);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
