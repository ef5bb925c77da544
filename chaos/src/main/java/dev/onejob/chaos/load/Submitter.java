package dev.onejob.chaos.load;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.chaos.history.History;
import dev.onejob.chaos.history.Op;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Sends submissions of intents, as a careful client would, and records each try in the history: over HTTP (through
 * nginx) a 2xx is ok, a 4xx fail, anything else (5xx, timeout, reset) unknown and retried with the same key and
 * payload after a backoff; on job-requests an acknowledged send is ok, a failed one unknown and retried. Every try
 * is its own operation. Owns nothing but counters; the HTTP client, the producer and the scheduler are shared.
 */
final class Submitter {
    static final int MAX_TRIES = 6;
    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(20);

    private final History history;
    private final HttpClient http;
    private final URI api;
    private final Map<String, String> tokens;
    private final KafkaProducer<String, String> producer;
    /** Where job requests go: job-requests, or the upstream principal's own topic. */
    private final String requestTopic;
    private final ScheduledExecutorService scheduler;
    private final AtomicInteger inFlight;

    Submitter(History history, HttpClient http, URI api, Map<String, String> tokens,
              KafkaProducer<String, String> producer, String requestTopic, ScheduledExecutorService scheduler,
              AtomicInteger inFlight) {
        this.history = history;
        this.http = http;
        this.api = api;
        this.tokens = tokens;
        this.producer = producer;
        this.requestTopic = requestTopic;
        this.scheduler = scheduler;
        this.inFlight = inFlight;
    }

    /** Submits over HTTP, retrying ambiguous outcomes; {@code done} gets the final outcome op. */
    void http(Intent intent, int tryNumber, Consumer<Op> done) {
        inFlight.incrementAndGet();
        Op invoke = new Op(System.currentTimeMillis(), history.nextOp(), Op.INVOKE, "submit", "http", intent.owner(),
                intent.key(), intent.fingerprint(), null, null, null, null);
        history.record(invoke);
        HttpRequest request = HttpRequest.newBuilder(api.resolve("/v1/jobs")).timeout(HTTP_TIMEOUT)
                .header("Authorization", "Bearer " + tokens.get(intent.owner()))
                .header("Idempotency-Key", intent.key())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(intent.body()))).build();
        CompletableFuture<HttpResponse<String>> answer;
        try {
            answer = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((response, error) -> {
            try {
                Op outcome = httpOutcome(invoke, response, error);
                history.record(outcome);
                if (Op.UNKNOWN.equals(outcome.type()) && tryNumber < MAX_TRIES) {
                    retry(tryNumber, () -> http(intent, tryNumber + 1, done));
                } else {
                    done.accept(outcome);
                }
            } finally {
                inFlight.decrementAndGet();
            }
        });
    }

    private static Op httpOutcome(Op invoke, HttpResponse<String> response, Throwable error) {
        long now = System.currentTimeMillis();
        if (error != null) {
            return invoke.outcome(now, Op.UNKNOWN, null, null, describe(error));
        }
        int status = response.statusCode();
        if (status / 100 == 2) {
            String jobId = jobId(response.body());
            return invoke.outcome(now, jobId == null ? Op.UNKNOWN : Op.OK, jobId, status,
                    jobId == null ? "2xx without a job id: " + abbreviate(response.body()) : null);
        }
        if (status / 100 == 4 && status != 429 && status != 408) {
            return invoke.outcome(now, Op.FAIL, null, status, abbreviate(response.body()));
        }
        return invoke.outcome(now, Op.UNKNOWN, null, status, abbreviate(response.body()));
    }

    /** Sends on job-requests, retrying a send the broker did not acknowledge. */
    void kafka(Intent intent, int tryNumber, Consumer<Op> done) {
        inFlight.incrementAndGet();
        long op = history.nextOp();
        String requestId = "chaos-" + op;
        Op invoke = new Op(System.currentTimeMillis(), op, Op.INVOKE, "submit", "kafka", intent.owner(),
                intent.key(), intent.fingerprint(), null, null, requestId, null);
        history.record(invoke);
        ProducerRecord<String, String> record = new ProducerRecord<>(requestTopic, intent.owner(),
                intent.envelope());
        record.headers().add("request_id", requestId.getBytes(StandardCharsets.UTF_8));
        send(record, invoke, outcome -> {
            if (Op.UNKNOWN.equals(outcome.type()) && tryNumber < MAX_TRIES) {
                retry(tryNumber, () -> kafka(intent, tryNumber + 1, done));
            } else {
                done.accept(outcome);
            }
        });
    }

    /** Sends a record that must be dead-lettered (its key names it in the history). */
    void poison(String key, String owner, byte[] value) {
        inFlight.incrementAndGet();
        Op invoke = new Op(System.currentTimeMillis(), history.nextOp(), Op.INVOKE, "poison", "kafka", owner, key,
                null, null, null, null, null);
        history.record(invoke);
        ProducerRecord<String, String> record = new ProducerRecord<>(requestTopic, key,
                new String(value, StandardCharsets.UTF_8));
        send(record, invoke, outcome -> { });
    }

    private void send(ProducerRecord<String, String> record, Op invoke, Consumer<Op> done) {
        try {
            producer.send(record, (metadata, error) -> {
                try {
                    Op outcome = invoke.outcome(System.currentTimeMillis(), error == null ? Op.OK : Op.UNKNOWN, null,
                            null, error == null ? null : describe(error));
                    history.record(outcome);
                    scheduler.execute(() -> done.accept(outcome));
                } finally {
                    inFlight.decrementAndGet();
                }
            });
        } catch (RuntimeException e) {
            Op outcome = invoke.outcome(System.currentTimeMillis(), Op.UNKNOWN, null, null, describe(e));
            history.record(outcome);
            inFlight.decrementAndGet();
            scheduler.execute(() -> done.accept(outcome));
        }
    }

    private void retry(int tryNumber, Runnable again) {
        inFlight.incrementAndGet();
        long backoff = Math.min(8_000, 500L << (tryNumber - 1));
        scheduler.schedule(() -> {
            inFlight.decrementAndGet();
            again.run();
        }, backoff, TimeUnit.MILLISECONDS);
    }

    static String jobId(String body) {
        try {
            JsonNode id = Json.parse(body).get("id");
            return id != null && id.isTextual() ? id.asText() : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    static String describe(Throwable error) {
        Throwable cause = error;
        while (cause.getCause() != null && cause != cause.getCause()) {
            cause = cause.getCause();
        }
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    static String abbreviate(String text) {
        return text == null || text.length() <= 300 ? text : text.substring(0, 300) + "...";
    }
}
