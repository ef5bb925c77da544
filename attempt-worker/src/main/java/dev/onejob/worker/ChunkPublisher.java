package dev.onejob.worker;

import dev.onejob.core.events.AttemptChunk;
import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import dev.onejob.providers.ChunkSink;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the pieces of streamed answers to {@code attempt-chunks} (key: job id), numbered from 0 per attempt, the
 * last one marked. Fire and forget: a piece is a live view, and losing one only makes the streams following the job
 * wait for the stored result. Pieces are sent from one thread, in order, never from the HTTP client's threads (a send
 * can block while the broker is away); a piece that finds the queue full is dropped. Owns that thread; the producer is
 * {@link Completions}'.
 */
final class ChunkPublisher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ChunkPublisher.class);
    static final int MAX_QUEUED_CHUNKS = 10_000;

    private final Producer<String, byte[]> producer;
    private final ThreadPoolExecutor sender = new ThreadPoolExecutor(
            1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(MAX_QUEUED_CHUNKS), r -> {
                Thread t = new Thread(r, "chunk-publisher");
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.DiscardPolicy());
    private volatile boolean closed;

    ChunkPublisher(Producer<String, byte[]> producer) {
        this.producer = producer;
    }

    /** Where a streamed call of {@code command}'s attempt sends its pieces. */
    ChunkSink sink(AttemptCommand command) {
        AtomicInteger seq = new AtomicInteger();
        return new ChunkSink() {
            @Override
            public void piece(String text) {
                send(new AttemptChunk(command.jobId(), command.attemptId(), seq.getAndIncrement(), text, false));
            }

            @Override
            public void end() {
                send(new AttemptChunk(command.jobId(), command.attemptId(), seq.getAndIncrement(), "", true));
            }
        };
    }

    private void send(AttemptChunk chunk) {
        if (closed) {
            return;
        }
        sender.execute(() -> {
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(Topics.ATTEMPT_CHUNKS.name(),
                    chunk.jobId().toString(), Json.write(chunk.toJson()).getBytes(StandardCharsets.UTF_8));
            record.headers().add(Headers.SCHEMA_VERSION,
                    Integer.toString(AttemptChunk.VERSION).getBytes(StandardCharsets.UTF_8));
            try {
                producer.send(record, (metadata, error) -> {
                    if (error != null) {
                        log.debug("event=chunk_not_published job={} attempt={} error={}", chunk.jobId(),
                                chunk.attemptId(), error.toString());
                    }
                });
            } catch (RuntimeException e) {
                log.debug("event=chunk_not_published job={} attempt={} error={}", chunk.jobId(), chunk.attemptId(),
                        e.toString());
            }
        });
    }

    /** Stops sending; pieces still queued are dropped. */
    @Override
    public void close() {
        closed = true;
        sender.shutdownNow();
    }
}
