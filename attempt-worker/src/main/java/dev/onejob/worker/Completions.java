package dev.onejob.worker;

import dev.onejob.core.billing.Usage;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.events.AttemptChunk;
import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.ledger.AttemptFailure;
import dev.onejob.core.service.LogContext;
import dev.onejob.providers.CallOutcome;
import dev.onejob.providers.ChunkSink;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes what each attempt did to {@code attempt-completions} (key: job id) with an idempotent producer, and
 * waits for the broker's acknowledgement. A paid answer is never given up while the worker runs: a completion the
 * broker does not take is tried again, with a backoff growing to {@link #MAX_BACKOFF}, until it does (a broker
 * outage longer than the producer's delivery timeout included). One the broker refuses as too large goes again
 * without its answer, as a FAILED {@code invalid_answer}. Only {@link #close()} (after the worker's drain) gives up
 * what is still unpublished; the sweeper then turns those attempts UNKNOWN: never a silent success.
 */
final class Completions implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Completions.class);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

    private final Producer<String, byte[]> producer;
    /** Publishing waits for the broker; that must not happen on the HTTP client's or the deadline timer's threads. */
    private final ExecutorService publisher = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "completion-publisher");
        t.setDaemon(true);
        return t;
    });

    /**
     * Pieces of streamed answers are sent from one thread, in order, never from the HTTP client's threads (a send
     * can block while the broker is away). A piece that finds the queue full is dropped: the streams following that
     * attempt see the gap and fall back on the stored result.
     */
    private final ThreadPoolExecutor chunkSender = new ThreadPoolExecutor(
            1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(MAX_QUEUED_CHUNKS), r -> {
                Thread t = new Thread(r, "chunk-publisher");
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.DiscardPolicy());
    static final int MAX_QUEUED_CHUNKS = 10_000;

    private final WorkerMetrics metrics;
    private final Duration firstBackoff;
    private volatile boolean closed;

    Completions(KafkaConfig kafka, String clientId, WorkerMetrics metrics) {
        this(new KafkaProducer<>(kafka.producer(clientId), new StringSerializer(), new ByteArraySerializer()), metrics,
                Duration.ofSeconds(1));
    }

    /**
     * Over a given producer (a {@code MockProducer} in the loop's unit tests); closed with this. A failed send waits
     * {@code firstBackoff}, then twice that, and so on up to {@link #MAX_BACKOFF}.
     */
    Completions(Producer<String, byte[]> producer, WorkerMetrics metrics, Duration firstBackoff) {
        this.metrics = metrics;
        this.producer = producer;
        this.firstBackoff = firstBackoff;
    }

    /** Publishes on the publisher pool; the future completes once the broker took it (or it was given up). */
    CompletableFuture<Void> publishAsync(AttemptCompletion completion) {
        return CompletableFuture.runAsync(() -> {
            try (LogContext ignored = LogContext.of(completion.jobId(), completion.attemptId())) {
                publish(completion);
            }
        }, publisher);
    }

    /**
     * Where a streamed call of {@code command}'s attempt sends its pieces: to {@code attempt-chunks}, numbered from 0,
     * the last one marked. Fire and forget: a piece is a live view, and losing one only makes the streams following
     * the job wait for the stored result.
     */
    ChunkSink chunkSink(AttemptCommand command) {
        AtomicInteger seq = new AtomicInteger();
        return new ChunkSink() {
            @Override
            public void piece(String text) {
                send(new AttemptChunk(command.jobId(), command.attemptId(),
                        seq.getAndIncrement(), text, false));
            }

            @Override
            public void end() {
                send(new AttemptChunk(command.jobId(), command.attemptId(),
                        seq.getAndIncrement(), "", true));
            }
        };
    }

    private void send(AttemptChunk chunk) {
        if (closed) {
            return;
        }
        chunkSender.execute(() -> {
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

    /** The completion of {@code outcome}, made storable first ({@link AnswerGuard}). */
    static AttemptCompletion of(AttemptCommand command, UUID startToken, ProviderConfig provider,
                                CallOutcome called) {
        CallOutcome outcome = AnswerGuard.storable(called);
        long latency = outcome.latency().toMillis();
        Instant now = Instant.now();
        Usage usage = outcome.usage();
        BigDecimal cost = usage == null || provider.prices() == null ? null : provider.prices().cost(usage);
        if (outcome instanceof CallOutcome.Succeeded ok) {
            return new AttemptCompletion(command.attemptId(), command.jobId(), AttemptCompletion.Outcome.SUCCEEDED,
                    ok.result(), null, null, provider.id(), provider.model(), ok.providerRequestId(), latency, now,
                    usage, cost, startToken, ok.finishReason());
        }
        if (outcome instanceof CallOutcome.Failed failed) {
            return new AttemptCompletion(command.attemptId(), command.jobId(), AttemptCompletion.Outcome.FAILED, null,
                    new AttemptCompletion.Error(failed.code(), failed.message(), failed.retryable(), failed.sent(),
                            failed.httpStatus(), failed.offendingAnswer(),
                            failed.retryAfter() == null ? null : failed.retryAfter().toMillis()),
                    null, provider.id(), provider.model(), failed.providerRequestId(), latency, now, usage, cost,
                    startToken);
        }
        CallOutcome.Unknown unknown = (CallOutcome.Unknown) outcome;
        return new AttemptCompletion(command.attemptId(), command.jobId(), AttemptCompletion.Outcome.UNKNOWN, null,
                null, unknown.reason(), provider.id(), provider.model(), null, latency, now, null, null, startToken);
    }

    /**
     * The FAILED completion of a command this worker did not run: nothing was sent to any provider. With the token of
     * this worker's start of it, or null when the worker never started it (it cannot run the command at all).
     */
    static AttemptCompletion notRunnable(AttemptCommand command, UUID startToken, String code, String message) {
        return new AttemptCompletion(command.attemptId(), command.jobId(), AttemptCompletion.Outcome.FAILED, null,
                new AttemptCompletion.Error(code, message, false, false, null, null), null, command.provider(), null,
                null, 0, Instant.now(), null, null, startToken);
    }

    /** The completion without its answer: what goes when the broker refuses the whole one as too large. */
    static AttemptCompletion withoutAnswer(AttemptCompletion completion, String why) {
        return new AttemptCompletion(completion.attemptId(), completion.jobId(), AttemptCompletion.Outcome.FAILED,
                null, new AttemptCompletion.Error(AttemptFailure.ANSWER_TOO_LARGE,
                        "the completion was refused by the broker (" + why + "); the answer is not kept", false, true,
                        null, null), null,
                completion.provider(), completion.model(), completion.providerRequestId(), completion.latencyMs(),
                completion.completedAt(), completion.usage(), completion.costUsd(), completion.startToken());
    }

    private static ProducerRecord<String, byte[]> record(AttemptCompletion completion) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(Topics.ATTEMPT_COMPLETIONS.name(),
                completion.jobId().toString(), Json.write(completion.toJson()).getBytes(StandardCharsets.UTF_8));
        record.headers().add(Headers.SCHEMA_VERSION,
                Integer.toString(AttemptCompletion.VERSION).getBytes(StandardCharsets.UTF_8));
        return record;
    }

    /** Sends and waits for the acknowledgement, again and again until the broker has it; on the publisher pool. */
    private void publish(AttemptCompletion given) {
        AttemptCompletion completion = given;
        ProducerRecord<String, byte[]> record;
        try {
            record = record(completion);
        } catch (RuntimeException e) {
            completion = withoutAnswer(completion, "it could not be written: " + e);
            record = record(completion);
        }
        Duration backoff = firstBackoff;
        for (int attempt = 1; !closed; attempt++) {
            try {
                producer.send(record).get(60, TimeUnit.SECONDS);
                metrics.completed(completion);
                log.info("event=completion_published job={} attempt={} outcome={} provider={} latency_ms={}{}",
                        completion.jobId(), completion.attemptId(), completion.outcome(), completion.provider(),
                        completion.latencyMs(), completion.error() == null ? "" : " code=" + completion.error().code());
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (Exception e) {
                Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                if (cause instanceof RecordTooLargeException && completion.result() != null
                        || cause instanceof RecordTooLargeException && completion.error() != null
                        && completion.error().offendingAnswer() != null) {
                    completion = withoutAnswer(completion, cause.getClass().getSimpleName());
                    record = record(completion);
                    continue;
                }
                log.warn("event=completion_publish_failed attempt={} try={} error=\"{}\" action=retry_in_{}ms",
                        completion.attemptId(), attempt, cause, backoff.toMillis());
                if (!sleep(backoff)) {
                    break;
                }
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
            }
        }
        metrics.lost();
        log.error("event=completion_lost job={} attempt={} outcome={} action=\"the worker stopped before the broker"
                + " took it; the sweeper will mark the attempt UNKNOWN\"", completion.jobId(), completion.attemptId(),
                completion.outcome());
    }

    /** False when interrupted (the worker is stopping). */
    private static boolean sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Gives up what is still unpublished (the worker has drained by now) and closes the producer. Publishing that is
     * under way when this is called is interrupted.
     */
    @Override
    public void close() {
        closed = true;
        chunkSender.shutdownNow();
        publisher.shutdownNow();
        try {
            publisher.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(10));
    }
}
