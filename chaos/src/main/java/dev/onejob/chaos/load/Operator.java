package dev.onejob.chaos.load;

import dev.onejob.chaos.history.History;
import dev.onejob.chaos.history.Op;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The on-call operator and the users behind the fallback button. Every UNKNOWN attempt it sees (a call past its
 * soft timeout, whose provider may still answer) gets a decision drawn from the seed and the attempt id: half are
 * left for their answer, a quarter are resolved FAILED out of band (the ledger fails over), a quarter resolved
 * CANCELLED, after which the owner presses the fallback button for the other provider. Each resolution waits a drawn
 * 0 to 4 s, so some race the provider's late answer: that is where lost races come from. Requests go through nginx
 * and are recorded in the history. Owns its scheduler.
 */
public final class Operator implements AutoCloseable {
    /** One UNKNOWN attempt as the operator's query sees it. */
    public record UnknownAttempt(String attemptId, String jobId, String provider, String owner) {
    }

    /** Where the operator reads UNKNOWN attempts from (the database, which may be restarting: then it throws). */
    @FunctionalInterface
    public interface Source {
        List<UnknownAttempt> unknownAttempts() throws Exception;
    }

    private final long seed;
    private final History history;
    private final Source source;
    private final URI api;
    private final String operatorToken;
    private final Map<String, String> ownerTokens;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, r -> {
        Thread thread = new Thread(r, "chaos-operator");
        thread.setDaemon(true);
        return thread;
    });

    public Operator(long seed, History history, Source source, URI api, String operatorToken,
                    Map<String, String> ownerTokens) {
        this.seed = seed;
        this.history = history;
        this.source = source;
        this.api = api;
        this.operatorToken = operatorToken;
        this.ownerTokens = ownerTokens;
    }

    public void start() {
        scheduler.scheduleWithFixedDelay(this::look, 1, 1, TimeUnit.SECONDS);
    }

    private void look() {
        List<UnknownAttempt> unknown;
        try {
            unknown = source.unknownAttempts();
        } catch (Exception e) {
            return; // the database is restarting; look again in a second
        }
        for (UnknownAttempt attempt : unknown) {
            if (!seen.add(attempt.attemptId())) {
                continue;
            }
            long draw = Math.floorMod(mix(seed ^ attempt.attemptId().hashCode() * 0x9E3779B97F4A7C15L), 1_000_000L);
            int choice = (int) (draw % 4);
            long delay = (draw / 4) % 4_000;
            if (choice == 1) {
                scheduler.schedule(() -> resolve(attempt, "FAILED"), delay, TimeUnit.MILLISECONDS);
            } else if (choice == 2) {
                scheduler.schedule(() -> {
                    if (resolve(attempt, "CANCELLED")) {
                        pressFallback(attempt);
                    }
                }, delay, TimeUnit.MILLISECONDS);
            }
        }
    }

    private boolean resolve(UnknownAttempt attempt, String outcome) {
        Op invoke = invoke("resolve", null, attempt.attemptId(), null, outcome);
        String body = "{\"outcome\":\"" + outcome + "\",\"reason\":\"chaos operator: provider status unclear\"}";
        return send(invoke, "/v1/attempts/" + attempt.attemptId() + "/resolve", operatorToken, body);
    }

    private void pressFallback(UnknownAttempt attempt) {
        String other = "primary".equals(attempt.provider()) ? "backup" : "primary";
        Op invoke = invoke("fallback", attempt.owner(), null, attempt.jobId(), other);
        send(invoke, "/v1/jobs/" + attempt.jobId() + "/attempts", ownerTokens.get(attempt.owner()),
                "{\"provider\":\"" + other + "\"}");
    }

    private Op invoke(String f, String owner, String key, String jobId, String detail) {
        Op op = new Op(System.currentTimeMillis(), history.nextOp(), Op.INVOKE, f, "http", owner, key, null, jobId,
                null, null, detail);
        history.record(op);
        return op;
    }

    private boolean send(Op invoke, String path, String token, String body) {
        HttpRequest request = HttpRequest.newBuilder(api.resolve(path)).timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            int status = response.statusCode();
            String type = status / 100 == 2 ? Op.OK : status / 100 == 4 ? Op.FAIL : Op.UNKNOWN;
            history.record(invoke.outcome(System.currentTimeMillis(), type, invoke.jobId(), status,
                    Submitter.abbreviate(response.body())));
            return Op.OK.equals(type);
        } catch (IOException e) {
            history.record(invoke.outcome(System.currentTimeMillis(), Op.UNKNOWN, invoke.jobId(), null,
                    Submitter.describe(e)));
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            history.record(invoke.outcome(System.currentTimeMillis(), Op.UNKNOWN, invoke.jobId(), null,
                    "interrupted"));
            return false;
        }
    }

    /** Decisions made so far (attempts seen UNKNOWN). */
    public int seen() {
        return seen.size();
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Stops looking; resolutions already scheduled run first (up to 10 s). */
    @Override
    public void close() {
        scheduler.shutdown();
        try {
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        scheduler.shutdownNow();
    }
}
