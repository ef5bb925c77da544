package dev.onejob.bench.loadgen;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;

/**
 * Runs one {@link LoadStep} against {@code POST /v1/jobs} (onejob's, or the peer's with the same shape) and
 * summarises it: answers by status, response latency, and when results are awaited, each distinct job's end-to-end
 * latency from the intended send time of its first request to its result (the first {@code job-results} record for
 * its job id, or the first 2xx answer when the server answers only once the work is done).
 *
 * <p>Requests go over the client's bounded pool of keep-alive connections ({@link LoadGenMain#CONNECTIONS}), as a
 * service calling another does; a request that finds every connection busy waits in the client, and its latency
 * counts from its intended send time all the same, so the wait is measured, not hidden.
 */
final class StepRunner {
    static final int MAX_OUTSTANDING = 20_000;

    private final HttpClient client;
    private final Executor callbacks;
    private final URI uri;
    private final Map<String, String> tokens;
    private final String await;
    private final ResultWatcher watcher;
    private final JobRequestFactory factory;

    private final Latencies latency = new Latencies();
    /** Latency of the 2xx answers only: what an accepted request cost while others were refused. */
    private final Latencies acceptedLatency = new Latencies();
    private final Set<String> acceptedKeys = ConcurrentHashMap.newKeySet();
    /** 503 and 429 answers (load shed, an owner over its share) without a Retry-After header. */
    private final AtomicLong refusedWithoutRetryAfter = new AtomicLong();
    /** Closed-loop requests sent again after a 503 or 429 (each retry is also counted in sent and statuses). */
    private final AtomicLong retriedAfterRefusal = new AtomicLong();
    private final AtomicLong lastRetryAfterMs = new AtomicLong(1_000);
    private final Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<String> firstProblem = new AtomicReference<>();
    /** The first transport error (no answer at all: a timeout, a reset, a refused connection). */
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final Map<String, Long> firstSend = new ConcurrentHashMap<>();
    private final Map<String, String> jobIds = new ConcurrentHashMap<>();
    private final Map<String, Long> answeredDone = new ConcurrentHashMap<>();
    private final AtomicLong lastAnswer = new AtomicLong();

    StepRunner(HttpClient client, Executor callbacks, URI uri, Map<String, String> tokens, String await,
               ResultWatcher watcher, JobRequestFactory factory) {
        this.client = client;
        this.callbacks = callbacks;
        this.uri = uri;
        this.tokens = tokens;
        this.await = await;
        this.watcher = watcher;
        this.factory = factory;
    }

    ObjectNode run(LoadStep step, double rate) throws InterruptedException {
        long start = System.nanoTime();
        if (step.closed()) {
            closedLoop(step, start);
        } else {
            openLoop(rate, (long) (step.seconds() * 1e9), start);
        }
        ObjectNode result = Json.object();
        result.put("name", step.name());
        result.put("kind", step.kind());
        result.put("concurrency", step.closed() ? step.concurrency() : 0);
        result.put("target_rate", step.closed() ? 0 : rate);
        result.put("sent", sent.get());
        result.put("distinct_jobs", factory.distinctJobs());
        result.put("errors", errors.get());
        result.put("first_problem", firstProblem.get());
        result.put("first_error", firstError.get());
        ObjectNode byStatus = result.putObject("statuses");
        new TreeMap<>(statuses).forEach((status, count) -> byStatus.put(Integer.toString(status), count.get()));
        double seconds = Math.max(1e-9, (lastAnswer.get() - start) / 1e9);
        result.put("seconds", seconds);
        result.put("answers_per_second", latency.count() / seconds);
        result.set("latency", latency.summary());
        result.set("accepted_latency", acceptedLatency.summary());
        result.put("accepted_distinct_jobs", acceptedKeys.size());
        result.put("refused_without_retry_after", refusedWithoutRetryAfter.get());
        result.put("retried_after_refusal", retriedAfterRefusal.get());
        if (!"none".equals(await)) {
            result.set("end_to_end", endToEnd(step, start));
        }
        return result;
    }

    private void closedLoop(LoadStep step, long start) throws InterruptedException {
        long end = step.seconds() > 0 ? start + (long) (step.seconds() * 1e9) : Long.MAX_VALUE;
        long max = step.requests() > 0 ? step.requests() : Long.MAX_VALUE;
        AtomicLong issued = new AtomicLong();
        CountDownLatch lanes = new CountDownLatch(step.concurrency());
        for (int i = 0; i < step.concurrency(); i++) {
            lane(step, end, max, issued, lanes);
        }
        lanes.await();
    }

    private void lane(LoadStep step, long end, long max, AtomicLong issued, CountDownLatch lanes) {
        if (System.nanoTime() >= end || issued.incrementAndGet() > max) {
            lanes.countDown();
            return;
        }
        JobRequestFactory.JobRequest job = factory.next();
        CompletableFuture<?> done = sendUntilAccepted(job, 0);
        if (step.awaitEach() && watcher != null) {
            // The client waits for its job's result (a repeat for the earlier job's), as the peer's clients do.
            done = done.thenCompose(ignored -> {
                String jobId = jobIds.get(job.key());
                return jobId == null ? CompletableFuture.completedFuture(null)
                        : watcher.arrived(jobId).completeOnTimeout(null, (long) step.awaitSeconds(),
                                TimeUnit.SECONDS);
            });
        }
        done.whenCompleteAsync((ignored, error) -> lane(step, end, max, issued, lanes), callbacks);
    }

    private void openLoop(double rate, long duration, long start) {
        long period = (long) (1e9 / rate);
        Semaphore slots = new Semaphore(MAX_OUTSTANDING);
        for (long i = 0; ; i++) {
            long intended = start + i * period;
            if (intended - start >= duration) {
                break;
            }
            long wait = intended - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            slots.acquireUninterruptibly();
            send(factory.next(), intended).whenComplete((ignored, error) -> slots.release());
        }
        slots.acquireUninterruptibly(MAX_OUTSTANDING);
        slots.release(MAX_OUTSTANDING);
    }

    /**
     * A closed-loop client's request: a refusal with Retry-After (503 load shed, 429 an owner over its share) is
     * retried with the same key after min(Retry-After, 2 s), as a well-behaved client does, up to 20 times; the
     * job's end-to-end latency still counts from its first send.
     */
    private CompletableFuture<Integer> sendUntilAccepted(JobRequestFactory.JobRequest job, int retries) {
        return send(job, System.nanoTime()).thenCompose(status -> {
            if ((status == 503 || status == 429) && retries < 20) {
                retriedAfterRefusal.incrementAndGet();
                long delayMs = Math.min(2_000, Math.max(100, lastRetryAfterMs.get()));
                return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(delayMs,
                        TimeUnit.MILLISECONDS, callbacks))
                        .thenCompose(ignored -> sendUntilAccepted(job, retries + 1));
            }
            return CompletableFuture.completedFuture(status);
        });
    }

    /** The answer's status, or -1 for a transport error. */
    private CompletableFuture<Integer> send(JobRequestFactory.JobRequest job, long intended) {
        firstSend.putIfAbsent(job.key(), intended);
        sent.incrementAndGet();
        Request request = client.newRequest(uri).method(HttpMethod.POST)
                .timeout(120, TimeUnit.SECONDS)
                .headers(headers -> headers.put("Authorization", "Bearer " + tokens.get(job.owner()))
                        .put("Idempotency-Key", job.key()))
                .body(new StringRequestContent("application/json", job.body()));
        return new CompletableResponseListener(request, 16 * 1024 * 1024).send().handle((response, error) -> {
            long now = System.nanoTime();
            latency.add(now - intended);
            lastAnswer.accumulateAndGet(now, Math::max);
            if (error != null) {
                errors.incrementAndGet();
                firstProblem.compareAndSet(null, error.toString());
                firstError.compareAndSet(null, error.toString());
                return -1;
            }
            int status = response.getStatus();
            Optional.ofNullable(response.getHeaders().get("Retry-After")).ifPresent(value -> {
                try {
                    lastRetryAfterMs.set(Long.parseLong(value.trim()) * 1000);
                } catch (NumberFormatException ignored) {
                    // an HTTP-date: keep the last one
                }
            });
            statuses.computeIfAbsent(status, s -> new AtomicLong()).incrementAndGet();
            if ((status == 503 || status == 429) && response.getHeaders().get("Retry-After") == null) {
                refusedWithoutRetryAfter.incrementAndGet();
            }
            if (status >= 200 && status < 300) {
                acceptedLatency.add(now - intended);
                acceptedKeys.add(job.key());
                if ("kafka".equals(await)) {
                    jobIds.putIfAbsent(job.key(), Json.parse(response.getContentAsString()).path("id").asText());
                } else if ("response".equals(await)) {
                    answeredDone.putIfAbsent(job.key(), now);
                }
            } else {
                firstProblem.compareAndSet(null, "HTTP " + status + ": " + response.getContentAsString());
            }
            return status;
        });
    }

    /** Waits (up to the step's limit) for every distinct job's result, then measures what arrived. */
    private ObjectNode endToEnd(LoadStep step, long start) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (step.awaitSeconds() * 1e9);
        // A key only ever refused (503, 429) made no job: only accepted ones are awaited.
        while (completedCount() < acceptedKeys.size() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        Latencies endToEnd = new Latencies();
        long last = start;
        // Open loop: the results that arrived in the second half of the offered window, per second; once the
        // pipeline is full this is the rate it sustains (the offered rate while it keeps up).
        long halfway = start + (long) (step.seconds() * 0.5e9);
        long offeredEnd = start + (long) (step.seconds() * 1e9);
        long inSecondHalf = 0;
        for (Map.Entry<String, Long> sentAt : firstSend.entrySet()) {
            if (!acceptedKeys.contains(sentAt.getKey())) {
                continue;
            }
            Long done = completion(sentAt.getKey());
            if (done != null) {
                endToEnd.add(done - sentAt.getValue());
                last = Math.max(last, done);
                if (done >= halfway && done < offeredEnd) {
                    inSecondHalf++;
                }
            }
        }
        ObjectNode node = Json.object();
        node.put("jobs", acceptedKeys.size());
        node.put("refused_keys", firstSend.size() - acceptedKeys.size());
        node.put("completed", endToEnd.count());
        node.put("missing", acceptedKeys.size() - endToEnd.count());
        double seconds = (last - start) / 1e9;
        boolean any = endToEnd.count() > 0 && seconds > 0;
        node.put("seconds", seconds);
        node.put("jobs_per_second", any ? endToEnd.count() / seconds : 0);
        node.put("requests_per_second", any ? sent.get() / seconds : 0);
        if (!step.closed() && step.seconds() > 0) {
            node.put("results_per_second_second_half", inSecondHalf / (step.seconds() / 2));
        }
        node.put("duplicate_results", watcher == null ? 0 : watcher.duplicates());
        node.set("latency", endToEnd.summary());
        return node;
    }

    private long completedCount() {
        return acceptedKeys.stream().filter(key -> completion(key) != null).count();
    }

    private Long completion(String key) {
        if ("response".equals(await)) {
            return answeredDone.get(key);
        }
        String jobId = jobIds.get(key);
        return jobId == null ? null : watcher.arrival(jobId);
    }
}
