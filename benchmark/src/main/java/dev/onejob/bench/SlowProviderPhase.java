package dev.onejob.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.Results;
import dev.onejob.bench.report.Targets;
import dev.onejob.simulator.LedgerEntry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Phases 8 and 9, AI-length calls: the {@code slow} provider (soft timeout 10 s, hard 30 s) at a simulator whose every answer
 * takes a delay drawn from a lognormal with median 1 s and p99 8 s. Two parts:
 * <ol>
 *   <li>open loop at rising offered rates (HTTP, each job's result awaited on {@code job-results}): jobs/s per rate,
 *       so where throughput stops growing shows, and the attempts in flight at once;</li>
 *   <li>a backlog on provider {@code long} (every call 30 s, soft timeout 45 s, hard 60 s): the worker is stopped,
 *       {@code slowBacklog} jobs are submitted and their attempt commands relayed, then the worker starts and finds
 *       them all at once: how many calls one worker holds in flight (counted at the simulator, from when each request
 *       arrived and was answered), how many it starts per second, its RSS meanwhile, and the time to drain.</li>
 * </ol>
 * After both: the attempts of every end-to-end and slow run that were made UNKNOWN (their {@code unknown_at}), and
 * how many of those the provider had answered before their soft deadline (from the simulators' ledgers): an UNKNOWN
 * that onejob's own queueing made, not the provider.
 */
record SlowProviderPhase(BenchContext context) {
    static final String LOGNORMAL = "{\"kind\":\"lognormal\",\"median_ms\":1000,\"p99_ms\":8000}";
    /** The share of this phase's calls the provider refuses with 429 and {@code Retry-After: 1}, as real ones do. */
    static final double REFUSED_SHARE = 0.05;
    /** The lognormal, with {@link #REFUSED_SHARE} of the attempts refused (429, {@code Retry-After: 1}) instead. */
    static final String LOGNORMAL_WITH_REFUSALS = "{\"kind\":\"mix\",\"share\":" + REFUSED_SHARE + ",\"then\":{"
            + "\"kind\":\"status\",\"status\":429,\"retry_after_s\":1},\"otherwise\":" + LOGNORMAL + "}";

    void run() throws Exception {
        BenchSettings settings = context.settings();
        Results results = context.results();
        String simulator = context.services().backupUrl();
        control(simulator, "PUT", LOGNORMAL_WITH_REFUSALS);
        // A call slower than the hard timeout leaves its attempt UNKNOWN for good (the lognormal's tail past 30 s is
        // about 1 in 15,000); the on-call resolves those FAILED, as a real one would.
        try (OperatorBot operator = OperatorBot.pastHardTimeout(context.database(), context.services().ingestPort(),
                context.files().operatorToken(), BenchFiles.SLOW, BenchFiles.SLOW_HARD_TIMEOUT)) {
            openLoop(settings, results, simulator);
            backlog(settings, results, simulator);
            results.add(Phases.SLOW_BACKLOG, "attempts resolved past the hard timeout", operator.resolvedCount(),
                    "attempts", "UNKNOWN attempts whose call took longer than " + BenchFiles.SLOW_HARD_TIMEOUT
                            .toSeconds() + " s, resolved FAILED by the benchmark's operator (their jobs FAIL: no "
                            + "fallback)");
        } finally {
            control(simulator, "DELETE", null);
        }
        unknownsAnsweredInTime(results);
        refusalsRetried(results);
    }

    /** The 429s of the slow runs, each retried on the provider as a new attempt, and the jobs they failed (none). */
    private void refusalsRetried(Results results) {
        long refused = context.database().count("SELECT count(*) FROM attempts WHERE provider = '" + BenchFiles.SLOW
                + "' AND error_code = 'http_429'");
        long failed = context.database().count("SELECT count(*) FROM jobs WHERE target_provider = '" + BenchFiles.SLOW
                + "' AND status = 'FAILED' AND error_code = 'http_429'");
        results.add(Phases.SLOW_PROVIDER, "attempts refused with 429 and retried", refused, "attempts",
                Math.round(REFUSED_SHARE * 100) + "% of the slow provider's calls are refused with 429 and Retry-After: "
                        + "1; each is retried on it as a new attempt after the backoff it asked for");
        results.add(Phases.SLOW_PROVIDER, "jobs FAILED by a 429", failed, "jobs",
                "jobs whose every try was refused (4 tries, the default retry policy: about 6 in a million)");
    }

    private void openLoop(BenchSettings settings, Results results, String simulator) throws Exception {
        LoadPlan plan = context.ingestLoad("slow", 0.0, "kafka")
                .awaitingKafka(context.kafka().bootstrapServers(), Services.HANG_MARKER)
                .onProviders(BenchFiles.SLOW, List.of());
        for (double rate : settings.slowRates()) {
            plan.openAtRate(rateStep(rate), rate, settings.slowStepSeconds());
        }
        Instant start = Instant.now();
        Map<String, JsonNode> steps;
        try (var window = context.window(Phases.SLOW_PROVIDER, context.services().onejobProcesses())) {
            steps = plan.run(context, "loadgen-slow");
        }
        context.expectedJobs().put("slow", LoadPlan.acceptedJobs(steps));
        double best = 0;
        double bestP99 = 0;
        for (double rate : settings.slowRates()) {
            JsonNode e2e = steps.get(rateStep(rate)).path("end_to_end");
            String label = String.format("at %.0f requests/s offered", rate);
            if (e2e.path("missing").asLong() > 0) {
                results.notMeasured(Phases.SLOW_PROVIDER, "jobs/s " + label, "jobs/s", e2e.path("missing").asLong()
                        + " jobs had no result within the time limit");
                continue;
            }
            double jobsPerSecond = e2e.path("results_per_second_second_half").asDouble();
            if (jobsPerSecond > best) {
                best = jobsPerSecond;
                bestP99 = e2e.path("latency").path("p99_ms").asDouble();
            }
            results.add(Phases.SLOW_PROVIDER, "jobs/s " + label, jobsPerSecond, "jobs/s", "results per second in the "
                    + "second half of " + settings.slowStepSeconds() + " s of offered load (the rate sustained once "
                    + "the pipeline is full); " + e2e.path("completed").asLong() + " jobs, all finished"
                    + (e2e.path("refused_keys").asLong() > 0 ? " (" + e2e.path("refused_keys").asLong()
                    + " requests refused with 503 or 429, no job)" : "") + "; p50 "
                    + Math.round(e2e.path("latency").path("p50_ms").asDouble()) + " ms, p99 "
                    + Math.round(e2e.path("latency").path("p99_ms").asDouble()) + " ms request to result");
        }
        results.add(Phases.SLOW_PROVIDER, Targets.AI_BEST, best, "jobs/s",
                "the highest of the offered rates' throughputs");
        results.add(Phases.SLOW_PROVIDER, Targets.AI_BEST_P99, bestP99, "ms",
                "request to result, at the offered rate of the best throughput");
        results.add(Phases.SLOW_PROVIDER, "peak calls in flight (open loop)",
                LedgerEntry.peakOverlap(held(simulator, start, "lognormal")),
                "calls", "requests the simulator held at once: one worker's calls in flight");
    }

    /**
     * The backlog run: on provider {@code long}, whose every call takes {@link BenchFiles#LONG_CALL} (inside its
     * timeouts), so the calls one worker holds at once are its starts over that time: the peak in flight shows
     * whether it can hold thousands, and the starts per second (from the ledger's {@code started_at}) how fast it
     * takes a backlog.
     */
    private void backlog(BenchSettings settings, Results results, String simulator) throws Exception {
        int jobs = settings.slowBacklog();
        context.services().stopWorker();
        LoadPlan plan = context.ingestLoad("slowbacklog", 0.0, "none")
                .onProviders(BenchFiles.LONG, List.of())
                .closedForRequests("submit", 32, jobs, true);
        plan.run(context, "loadgen-slow-backlog");
        context.expectedJobs().put("slowbacklog", (long) jobs);
        awaitCount("SELECT count(*) FROM outbox WHERE topic = 'attempt-commands' AND sent_at IS NULL "
                + "AND parked_at IS NULL", 0, Duration.ofMinutes(2),
                "the backlog's attempt commands were not relayed");
        control(simulator, "PUT", "{\"kind\":\"answer\",\"delay_ms\":" + BenchFiles.LONG_CALL.toMillis() + "}");
        Instant start = Instant.now();
        long started = System.nanoTime();
        context.services().startWorker();
        double seconds;
        try (var window = context.window(Phases.SLOW_BACKLOG, context.services().onejobProcesses())) {
            awaitCount("SELECT count(*) FROM jobs WHERE idempotency_key LIKE 'slowbacklog-%' AND status IN "
                    + "('SUCCEEDED', 'FAILED', 'CANCELLED')", jobs, Duration.ofMinutes(5),
                    "the backlog's jobs did not all finish");
            seconds = (System.nanoTime() - started) / 1e9;
        }
        long peak = LedgerEntry.peakOverlap(held(simulator, start, "answer"));
        results.add(Phases.SLOW_BACKLOG, "peak calls in flight (backlog)", peak, "calls", jobs + " attempt commands "
                + "waiting when the worker started (WORKER_MAX_IN_FLIGHT 4096 by default), each call "
                + BenchFiles.LONG_CALL.toSeconds() + " s; requests the simulator held at once");
        List<Instant> received = held(simulator, start, "answer").stream().map(h -> h[0]).sorted().toList();
        double spread = received.size() < 2 ? 0
                : Duration.between(received.get(0), received.get(received.size() - 1)).toNanos() / 1e9;
        results.add(Phases.SLOW_BACKLOG, Targets.STARTS_PER_SECOND, spread > 0 ? (received.size() - 1) / spread : 0,
                "starts/s", received.size() + " calls reached the simulator over " + String.format(Locale.ROOT,
                        "%.2f", spread) + " s, first to last: the worker's starts as the provider sees them");
        results.add(Phases.SLOW_BACKLOG, "backlog jobs/s", jobs / seconds, "jobs/s", jobs + " jobs finished "
                + String.format(Locale.ROOT, "%.1f", seconds) + " s after the worker started (its start included)");
        long failed = context.database().count("SELECT count(*) FROM jobs WHERE idempotency_key LIKE 'slow%' "
                + "AND status <> 'SUCCEEDED'");
        results.add(Phases.SLOW_BACKLOG, "slow jobs not SUCCEEDED", failed, "jobs", "open loop and backlog");
    }

    /** Attempts ever made UNKNOWN, and those whose provider had answered before their soft deadline. */
    private void unknownsAnsweredInTime(Results results) {
        Map<String, Instant> answered = new HashMap<>();
        for (String simulator : List.of(context.services().primaryUrl(), context.services().backupUrl())) {
            for (JsonNode entry : Invariants.ledger(simulator)) {
                if (entry.hasNonNull("answered_at") && entry.hasNonNull("idempotency_key")) {
                    answered.merge(entry.get("idempotency_key").asText(),
                            Instant.parse(entry.get("answered_at").asText()), (a, b) -> a.isBefore(b) ? a : b);
                }
            }
        }
        List<List<String>> unknown = context.database().query("SELECT id::text, "
                + "(extract(epoch FROM soft_deadline) * 1000000)::bigint::text FROM attempts WHERE unknown_at IS NOT NULL");
        long inTime = 0;
        for (List<String> row : unknown) {
            Instant answer = answered.get(row.get(0));
            long deadlineMicros = Long.parseLong(row.get(1));
            if (answer != null && answer.getEpochSecond() * 1_000_000L + answer.getNano() / 1_000 < deadlineMicros) {
                inTime++;
            }
        }
        results.add(Phases.SLOW_BACKLOG, "attempts made UNKNOWN", unknown.size(), "attempts",
                "unknown_at set, over every end-to-end and slow-provider run (the timeout run's hangs among them)");
        results.add(Phases.SLOW_BACKLOG, "UNKNOWN attempts answered before their soft deadline", inTime, "attempts",
                "the simulator had answered (its ledger's answered_at) before the attempt's soft_deadline: an UNKNOWN "
                        + "onejob's own queueing made");
    }

    /**
     * The requests the simulator received after {@code from} under {@code behaviour}: when each arrived, and when it
     * was answered (null while held).
     */
    private static List<Instant[]> held(String simulator, Instant from, String behaviour) {
        List<Instant[]> held = new ArrayList<>();
        for (JsonNode entry : Invariants.ledger(simulator)) {
            Instant received = Instant.parse(entry.get("received_at").asText());
            if (received.isBefore(from) || !behaviour.equals(entry.path("behaviour").asText())) {
                continue;
            }
            held.add(new Instant[] {received, entry.hasNonNull("answered_at")
                    ? Instant.parse(entry.get("answered_at").asText()) : null});
        }
        return held;
    }

    private void awaitCount(String sql, long expected, Duration limit, String failure) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        long count;
        while ((count = context.database().count(sql)) != expected) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(failure + " within " + limit + ": " + count + " of " + expected);
            }
            Thread.sleep(100);
        }
    }

    private static String rateStep(double rate) {
        return "rate-" + Math.round(rate);
    }

    static void control(String simulator, String method, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(simulator + "/_sim/behaviour"))
                .timeout(Duration.ofSeconds(10));
        request = body == null ? request.method(method, HttpRequest.BodyPublishers.noBody())
                : request.header("Content-Type", "application/json").method(method,
                        HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response = HttpClient.newHttpClient().send(request.build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("the simulator refused " + method + " /_sim/behaviour: HTTP "
                    + response.statusCode() + " " + response.body());
        }
    }
}
