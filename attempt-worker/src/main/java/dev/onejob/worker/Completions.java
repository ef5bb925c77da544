package dev.onejob.worker;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.events.AttemptCommand;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import dev.onejob.core.service.LogContext;
import dev.onejob.providers.CallOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes what each attempt did to {@code attempt-completions} (key: job id) with an idempotent producer, and
 * waits for the broker's acknowledgement. A completion the broker would not take is retried; one that is lost for
 * good leaves the attempt STARTING, which the reconciler's sweeper turns UNKNOWN: never a silent success.
 */
final class Completions implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Completions.class);
    private static final int TRIES = 5;

    private final Producer<String, byte[]> producer;
    /** Publishing waits for the broker; that must not happen on the HTTP client's or the deadline timer's threads. */
    private final ExecutorService publisher = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "completion-publisher");
        t.setDaemon(true);
        return t;
    });

    private final WorkerMetrics metrics;

    Completions(KafkaConfig kafka, String clientId, WorkerMetrics metrics) {
        this(new KafkaProducer<>(kafka.producer(clientId), new StringSerializer(), new ByteArraySerializer()), metrics);
    }

    /** Over a given producer (a {@code MockProducer} in the loop's unit tests); closed with this. */
    Completions(Producer<String, byte[]> producer, WorkerMetrics metrics) {
        this.metrics = metrics;
        this.producer = producer;
    }

    /** Publishes on the publisher pool; the future completes once the broker took it (or it was given up). */
    CompletableFuture<Void> publishAsync(AttemptCompletion completion) {
        return CompletableFuture.runAsync(() -> {
            try (LogContext ignored = LogContext.of(completion.jobId(), completion.attemptId())) {
                publish(completion);
            }
        }, publisher);
    }

    static AttemptCompletion of(AttemptCommand command, ProviderConfig provider, CallOutcome outcome) {
        long latency = outcome.latency().toMillis();
        Instant now = Instant.now();
        if (outcome instanceof CallOutcome.Succeeded ok) {
            return new AttemptCompletion(command.attemptId(), command.jobId(), AttemptCompletion.Outcome.SUCCEEDED,
                    ok.result(), null, null, provider.id(), provider.model(), ok.providerRequestId(), latency, now);
        }
        if (outcome instanceof CallOutcome.Failed failed) {
            return new AttemptCompletion(command.attemptId(), command.jobId(), AttemptCompletion.Outcome.FAILED, null,
                    new AttemptCompletion.Error(failed.code(), failed.message(), failed.retryable(), failed.sent(),
                            failed.httpStatus(), failed.offendingAnswer()),
                    null, provider.id(), provider.model(), failed.providerRequestId(), latency, now);
        }
        CallOutcome.Unknown unknown = (CallOutcome.Unknown) outcome;
        return new AttemptCompletion(command.attemptId(), command.jobId(), AttemptCompletion.Outcome.UNKNOWN, null,
                null, unknown.reason(), provider.id(), provider.model(), null, latency, now);
    }

    /** Sends and waits for the acknowledgement, retrying; runs on the publisher pool. */
    private void publish(AttemptCompletion completion) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(Topics.ATTEMPT_COMPLETIONS.name(),
                completion.jobId().toString(), Json.write(completion.toJson()).getBytes(StandardCharsets.UTF_8));
        record.headers().add(Headers.SCHEMA_VERSION,
                Integer.toString(AttemptCompletion.VERSION).getBytes(StandardCharsets.UTF_8));
        for (int attempt = 1; attempt <= TRIES; attempt++) {
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
                log.warn("event=completion_publish_failed attempt={} try={} error=\"{}\"", completion.attemptId(),
                        attempt, e.toString());
                sleep(Duration.ofSeconds(attempt));
            }
        }
        log.error("event=completion_lost job={} attempt={} outcome={} action=\"the sweeper will mark it UNKNOWN\"",
                completion.jobId(), completion.attemptId(), completion.outcome());
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        publisher.shutdown();
        try {
            publisher.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(10));
    }
}
