package dev.onejob.chaos.load;

import dev.onejob.chaos.ChaosSettings;
import dev.onejob.chaos.history.History;
import dev.onejob.chaos.history.Op;
import dev.onejob.chaos.KafkaAccess;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The chaos run's upstream: new intents at a steady rate from several owners, over HTTP (through nginx) and on
 * Kafka together (the shared job-requests, or the upstream principal's own topic on the authenticated cluster). Of the intents, {@code RESUBMIT_SHARE} are submitted again with the same key and payload
 * (half at the same moment on either channel, half 2 to 20 s later), {@code CONFLICT_SHARE} of the HTTP ones once
 * more with another payload after their first answer, and every {@code POISON_EVERY}-th comes with a poison record.
 * Every choice is drawn from the seed. Owns the HTTP client, the producer and the scheduler.
 */
public final class LoadGenerator implements AutoCloseable {
    private static final List<byte[]> POISON = List.of(
            "{not json".getBytes(StandardCharsets.UTF_8),
            "{\"idempotency_key\":\"k\",\"request\":{}}".getBytes(StandardCharsets.UTF_8),
            "{\"owner_id\":42,\"idempotency_key\":[],\"request\":\"text\"}".getBytes(StandardCharsets.UTF_8),
            "[1,2,3]".getBytes(StandardCharsets.UTF_8));

    private final ChaosSettings settings;
    private final History history;
    private final List<String> owners;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final KafkaProducer<String, String> producer;
    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, r -> {
        Thread thread = new Thread(r, "chaos-load");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Submitter submitter;

    public LoadGenerator(ChaosSettings settings, History history, URI api, Map<String, String> tokens,
                         List<String> owners, KafkaAccess kafka) {
        this.settings = settings;
        this.history = history;
        this.owners = List.copyOf(owners);
        Map<String, Object> props = kafka.upstream().producer("chaos-load");
        props.put("delivery.timeout.ms", 20_000);
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
        this.submitter = new Submitter(history, http, api, tokens, producer, kafka.requestTopic(), scheduler,
                inFlight);
    }

    /** Submits every intent at its time, then waits (up to {@code settle}) for the last answers and retries. */
    public void run(Duration settle) throws InterruptedException {
        long intents = settings.intents();
        long start = System.nanoTime();
        double perIntentNanos = 1e9 / settings.intentsPerSec();
        SplittableRandom random = new SplittableRandom(settings.seed());
        for (long n = 0; n < intents; n++) {
            long due = start + (long) (n * perIntentNanos);
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            plan(n, random.split());
        }
        long deadline = System.nanoTime() + settle.toNanos();
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
    }

    /** Submissions still to come or unanswered. */
    public int inFlight() {
        return inFlight.get();
    }

    private void plan(long n, SplittableRandom random) {
        Intent intent = Intent.of(settings.seed(), n, owners.get(random.nextInt(owners.size())));
        boolean overKafka = random.nextDouble() < ChaosSettings.KAFKA_SHARE;
        boolean conflict = !overKafka && random.nextDouble() < ChaosSettings.CONFLICT_SHARE;
        if (overKafka) {
            submitter.kafka(intent, 1, outcome -> { });
        } else {
            submitter.http(intent, 1, outcome -> {
                if (conflict && Op.OK.equals(outcome.type())) {
                    later(2_000 + random(intent, 3_000), () -> submitter.http(intent.conflicting(), Submitter.MAX_TRIES,
                            ignored -> { }));
                }
            });
        }
        if (random.nextDouble() < ChaosSettings.RESUBMIT_SHARE) {
            boolean again = random.nextBoolean();
            boolean againOverKafka = random.nextDouble() < ChaosSettings.KAFKA_SHARE;
            long delay = again ? 2_000 + random.nextLong(18_000) : 0;
            later(delay, () -> {
                if (againOverKafka) {
                    submitter.kafka(intent, 1, outcome -> { });
                } else {
                    submitter.http(intent, 1, outcome -> { });
                }
            });
        }
        if (n % ChaosSettings.POISON_EVERY == ChaosSettings.POISON_EVERY - 1) {
            byte[] poison = POISON.get((int) ((n / ChaosSettings.POISON_EVERY) % POISON.size()));
            submitter.poison("poison-" + intent.key(), intent.owner(), poison);
        }
    }

    private static long random(Intent intent, long bound) {
        return Math.floorMod(intent.key().hashCode() * 31L, bound);
    }

    private void later(long delayMs, Runnable action) {
        if (delayMs <= 0) {
            action.run();
            return;
        }
        inFlight.incrementAndGet();
        scheduler.schedule(() -> {
            inFlight.decrementAndGet();
            action.run();
        }, delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        producer.close(Duration.ofSeconds(5));
    }
}
