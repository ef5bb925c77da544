package dev.onejob.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The on-call operator of the end-to-end runs. onejob never fails over on a timeout by itself (the provider may
 * still be working: the attempt is UNKNOWN); an operator decides. This one knows which provider calls the benchmark
 * made hang (their job's request carries the hang marker), as an on-call would after checking the provider's status,
 * and resolves those attempts FAILED as soon as they are UNKNOWN, through the API
 * ({@code POST /v1/attempts/{id}/resolve}, operator token), which fails the job over to its next certified provider
 * in the same transaction. Other UNKNOWN attempts (the sweeper's, while a late completion is still on its way) are
 * left alone: their answer resolves them. {@link #pastHardTimeout} is the other on-call rule, for the slow-provider
 * runs: an attempt still UNKNOWN after its provider's hard timeout will get no answer the worker still waits for, so
 * the operator resolves it FAILED.
 */
final class OperatorBot implements AutoCloseable {
    private final BenchDatabase database;
    private final URI base;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Set<String> resolved = ConcurrentHashMap.newKeySet();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;
    private final String query;
    private final Object parameter;

    OperatorBot(BenchDatabase database, int ingestPort, String token) {
        this(database, ingestPort, token, "SELECT a.id FROM attempts a JOIN jobs j ON j.id = a.job_id "
                + "WHERE a.status = 'UNKNOWN' AND strpos(j.request::text, ?) > 0", Services.HANG_MARKER);
    }

    /** Resolves FAILED the UNKNOWN attempts on {@code provider} started longer ago than its hard timeout. */
    static OperatorBot pastHardTimeout(BenchDatabase database, int ingestPort, String token, String provider,
                                       Duration hardTimeout) {
        return new OperatorBot(database, ingestPort, token, "SELECT id FROM attempts WHERE status = 'UNKNOWN' "
                + "AND provider = ? AND started_at < now() - interval '" + hardTimeout.toMillis() + " milliseconds'",
                provider);
    }

    private OperatorBot(BenchDatabase database, int ingestPort, String token, String query, Object parameter) {
        this.query = query;
        this.parameter = parameter;
        this.database = database;
        this.base = URI.create("http://127.0.0.1:" + ingestPort);
        this.token = token;
        this.thread = new Thread(this::run, "bench-operator");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (running.get()) {
            try {
                for (List<String> row : database.query(query, parameter)) {
                    if (!resolved.contains(row.get(0))) {
                        resolve(row.get(0));
                    }
                }
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                failures.incrementAndGet();
            }
        }
    }

    private void resolve(String attemptId) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/v1/attempts/" + attemptId + "/resolve"))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"outcome\":\"FAILED\",\"reason\":\"benchmark operator: the provider did not answer in time\"}"))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 == 2 || response.statusCode() == 409) {
                resolved.add(attemptId);
            } else {
                failures.incrementAndGet();
            }
        } catch (IOException e) {
            failures.incrementAndGet();
        }
    }

    long resolvedCount() {
        return resolved.size();
    }

    long failures() {
        return failures.get();
    }

    @Override
    public void close() {
        running.set(false);
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
