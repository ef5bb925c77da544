package dev.onejob.worker;

import dev.onejob.core.billing.Usage;
import dev.onejob.core.config.ProviderConfig;
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
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes what each attempt did to {@code attempt-completions} (key: job id) with an idempotent producer; each
 * publication's future completes when the broker acknowledged it. Sends do not wait for one another: one thread hands
 * records to the producer, which batches them, and the acknowledgements come back in its callbacks. A paid answer is
 * never given up while the worker runs: a completion the broker does not take is sent again, with a backoff growing
 * to {@link #MAX_BACKOFF}, until it does (a broker outage longer than the producer's delivery timeout included). One
 * the broker refuses as too large goes again without its answer, as a FAILED {@code answer_too_large}. Only
 * {@link #close()} (after the worker's drain) gives up what is still unpublished; the sweeper then turns those
 * attempts UNKNOWN: never a silent success.
 */
final class Completions implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Completions.class);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

    private final Producer<String, byte[]> producer;
    /**
     * Hands records to the producer and runs the retries' backoffs: a send can block while the broker is away (the
     * producer's metadata wait), which must not happen on the HTTP client's or the deadline timer's threads.
     */
    private final ScheduledExecutorService publisher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "completion-publisher");
        t.setDaemon(true);
        return t;
    });

    /** Publications under way, so that closing can give up, and say so, what the broker never took. */
    private final Map<CompletableFuture<Void>, AttemptCompletion> unpublished = new ConcurrentHashMap<>();
    private final ChunkPublisher chunks;
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
        this.chunks = new ChunkPublisher(producer);
        this.firstBackoff = firstBackoff;
    }

    /** Publishes without waiting; the future completes once the broker took it (or it was given up). */
    CompletableFuture<Void> publishAsync(AttemptCompletion completion) {
        CompletableFuture<Void> published = new CompletableFuture<>();
        unpublished.put(published, completion);
        published.whenComplete((ignored, error) -> unpublished.remove(published));
        onPublisher(() -> send(completion, firstBackoff, 1, published), completion, published);
        return published;
    }

    /** Where a streamed call of {@code command}'s attempt sends its pieces ({@link ChunkPublisher}). */
    ChunkSink chunkSink(AttemptCommand command) {
        return chunks.sink(command);
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

    /** Runs {@code task} on the publisher thread; once the worker is closing, gives the completion up instead. */
    private void onPublisher(Runnable task, AttemptCompletion completion, CompletableFuture<Void> published) {
        try {
            publisher.execute(task);
        } catch (RejectedExecutionException e) {
            lost(completion, published);
        }
    }

    /**
     * Hands the record to the producer; its callback (on the producer's thread, which must not block) completes
     * {@code published}, or sends it again without its answer when the broker refused it as too large, or after
     * {@code backoff} for any other failure.
     */
    private void send(AttemptCompletion given, Duration backoff, int attempt, CompletableFuture<Void> published) {
        if (closed) {
            lost(given, published);
            return;
        }
        AttemptCompletion writable = given;
        ProducerRecord<String, byte[]> record;
        try {
            record = record(given);
        } catch (RuntimeException e) {
            // An answer that cannot be written as JSON goes without it.
            writable = withoutAnswer(given, "it could not be written: " + e);
            record = record(writable);
        }
        AttemptCompletion completion = writable;
        try (LogContext ignored = LogContext.of(completion.jobId(), completion.attemptId())) {
            producer.send(record, (metadata, error) -> {
                if (error == null) {
                    metrics.completed(completion);
                    log.debug("event=completion_published job={} attempt={} outcome={} provider={} latency_ms={}{}",
                            completion.jobId(), completion.attemptId(), completion.outcome(), completion.provider(),
                            completion.latencyMs(), completion.error() == null ? ""
                                    : " code=" + completion.error().code());
                    published.complete(null);
                } else {
                    failed(completion, error, backoff, attempt, published);
                }
            });
        } catch (RuntimeException e) {
            // The producer refused at once: the broker's metadata did not come within max.block.ms, or it is closing.
            failed(completion, e, backoff, attempt, published);
        }
    }

    private void failed(AttemptCompletion completion, Throwable error, Duration backoff, int attempt,
                        CompletableFuture<Void> published) {
        boolean hasAnswer = completion.result() != null
                || completion.error() != null && completion.error().offendingAnswer() != null;
        if (error instanceof RecordTooLargeException && hasAnswer) {
            AttemptCompletion smaller = withoutAnswer(completion, error.getClass().getSimpleName());
            onPublisher(() -> send(smaller, backoff, attempt + 1, published), smaller, published);
            return;
        }
        log.warn("event=completion_publish_failed job={} attempt={} try={} error=\"{}\" action=retry_in_{}ms",
                completion.jobId(), completion.attemptId(), attempt, error, backoff.toMillis());
        Duration next = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
        try {
            publisher.schedule(() -> send(completion, next, attempt + 1, published), backoff.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            lost(completion, published);
        }
    }

    private void lost(AttemptCompletion completion, CompletableFuture<Void> published) {
        if (!published.complete(null)) {
            return;
        }
        metrics.lost();
        log.error("event=completion_lost job={} attempt={} outcome={} action=\"the worker stopped before the broker"
                + " took it; the sweeper will mark the attempt UNKNOWN\"", completion.jobId(), completion.attemptId(),
                completion.outcome());
    }

    /**
     * Gives up what is still unpublished (the worker has drained by now) and closes the producer: what the producer
     * holds is flushed first; a retry waiting out its backoff is given up.
     */
    @Override
    public void close() {
        closed = true;
        chunks.close();
        publisher.shutdownNow();
        try {
            publisher.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Sends already handed to the producer are flushed, and acknowledged or failed, before it closes; what is
        // left (a retry waiting out its backoff, a send never run) is given up.
        producer.close(Duration.ofSeconds(10));
        Map.copyOf(unpublished).forEach((published, completion) -> lost(completion, published));
    }
}
