package dev.onejob.launcher.demo;

import static dev.onejob.launcher.demo.DemoContext.shortId;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.launcher.cli.ApiClient;
import dev.onejob.launcher.demo.Scenario.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * 1. The double click: the same request sent twice at the same moment with one Idempotency-Key makes one job, and
 * the provider is called once for its one attempt (counted in the primary simulator's ledger).
 */
final class DoubleClickScenario implements Scenario.Play {
    @Override
    public Outcome run(DemoContext context) {
        Narrator narrator = context.narrator();
        String key = context.key("double-click");
        JsonNode request = DemoContext.request("I loved it, the support team was quick.");
        narrator.say("alice double-clicks: two POST /v1/jobs at the same moment, both with Idempotency-Key " + key);
        List<ApiClient.Response> answers = twoAtOnce(() -> context.submit(key, request));
        ApiClient.Response first = answers.get(0);
        ApiClient.Response second = answers.get(1);
        String jobId = first.body().path("id").asText();
        String otherId = second.body().path("id").asText();
        narrator.say("answers: " + describe(first) + " and " + describe(second));
        Checks checks = new Checks();
        checks.check(Set.of(first.status(), second.status()).equals(Set.of(200, 201)),
                "one 201 Created and one 200 replay");
        checks.check(!jobId.isEmpty() && jobId.equals(otherId), "the same job id twice");
        if (!checks.allHeld()) {
            return checks.outcome(first.describe() + " / " + second.describe());
        }
        narrator.say("one job, " + shortId(jobId) + "; waiting for it to finish ...");
        JsonNode job = context.awaitJob(jobId, Duration.ofSeconds(30), j -> DemoContext.hasStatus(j, "SUCCEEDED"));
        String attemptId = DemoContext.attempt(job, 1).path("id").asText();
        long calls = context.primary().requestsWithIdempotencyKey(attemptId);
        narrator.say("the job is " + job.path("status").asText() + " with " + job.path("attempts").size()
                + " attempt(s); the primary simulator's ledger has " + calls + " request(s) with Idempotency-Key "
                + attemptId + " (attempt #1)");
        checks.check(DemoContext.hasStatus(job, "SUCCEEDED"), "the job SUCCEEDED");
        checks.check(job.path("attempts").size() == 1, "one attempt");
        checks.check(calls == 1, "exactly one provider call for attempt #1");
        return checks.outcome(Math.max(first.status(), second.status()) + " + " + Math.min(first.status(),
                second.status()) + ", job " + shortId(jobId) + " both times; "
                + calls + " provider call(s) for attempt #1; " + job.path("status").asText());
    }

    private static String describe(ApiClient.Response response) {
        return response.status() + " job " + shortId(response.body().path("id").asText("?"))
                + response.header("Idempotent-Replayed").map(v -> " (Idempotent-Replayed: " + v + ")").orElse("");
    }

    /** Runs {@code call} on two threads released together, as two clicks in the same instant. */
    private static List<ApiClient.Response> twoAtOnce(Supplier<ApiClient.Response> call) {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        CountDownLatch ready = new CountDownLatch(2);
        CountDownLatch go = new CountDownLatch(1);
        try {
            Supplier<ApiClient.Response> click = () -> {
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return call.get();
            };
            CompletableFuture<ApiClient.Response> one = CompletableFuture.supplyAsync(click, threads);
            CompletableFuture<ApiClient.Response> two = CompletableFuture.supplyAsync(click, threads);
            ready.await();
            go.countDown();
            return List.of(one.join(), two.join());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted before the clicks", e);
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        } finally {
            threads.shutdownNow();
        }
    }
}
