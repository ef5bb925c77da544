package dev.onejob.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.Results;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Phase 14, a ledger at scale: submit latency (an open loop at a fixed rate) and the usage query's latency
 * ({@code GET /v1/usage} grouped by provider and day over 30 days, as an owner's dashboard asks it), first on the
 * ledger as the run left it, then again after {@code scaleJobs} finished jobs with their attempts, and a year of
 * daily usage for a thousand owners and the run's own, were added with set-based SQL. What it shows: the indexes
 * that submissions touch, and the roll-up the usage report reads, keep both within 1.5x of the small ledger.
 *
 * <p>Runs last, with only the ingest service up, so that the rows it adds (and the autovacuum they set off) cannot
 * touch any other phase's figures. The added jobs are dated within the last 20 hours, so key retention, which
 * archives finished jobs a day after their creation, leaves them in the live tables: the worst case for them.
 */
record LedgerScalePhase(BenchContext context) {
    private static final long CHUNK = 500_000;
    private static final double SUBMIT_RATE = 100;
    private static final int SYNTHETIC_OWNERS = 1_000;
    private static final double WARMUP_SECONDS = 3;

    void run() throws Exception {
        BenchSettings settings = context.settings();
        Results results = context.results();
        String owner = context.files().submitterTokens().keySet().iterator().next();
        String token = context.files().submitterTokens().get(owner);
        long before = context.database().count("SELECT count(*) FROM jobs");
        Measured fresh;
        Measured grown;
        long loadMillis;
        try (var window = context.window(Phases.LEDGER_SCALE, List.of(context.services().ingest()))) {
            fresh = measure("scalefresh", token, settings);
            long started = System.nanoTime();
            grow(settings.scaleJobs(), owner);
            loadMillis = (System.nanoTime() - started) / 1_000_000;
            grown = measure("scalegrown", token, settings);
        }
        long after = context.database().count("SELECT count(*) FROM jobs");
        long usageRows = context.database().count("SELECT count(*) FROM usage_daily");
        results.add(Phases.LEDGER_SCALE, "jobs in the ledger (before)", before, "jobs", "what the run's phases left");
        results.add(Phases.LEDGER_SCALE, "jobs in the ledger (grown)", after, "jobs", settings.scaleJobs()
                + " finished jobs, each with its attempt, added in " + loadMillis / 1000 + " s with set-based SQL"
                + " (chunks of " + CHUNK + "), then ANALYZE; usage_daily holds " + usageRows + " rows");
        add(results, "submit", fresh.submit, grown.submit, "open loop at " + SUBMIT_RATE + " requests/s for "
                + settings.scaleStepSeconds() + " s, " + Math.round(settings.repeatShare() * 100) + "% repeats");
        add(results, "usage query", fresh.usage, grown.usage, settings.usageQueries()
                + " GET /v1/usage?group_by=provider,day over 30 days by one owner, one after another");
    }

    private static void add(Results results, String what, double[] fresh, double[] grown, String how) {
        results.add(Phases.LEDGER_SCALE, what + " p50 ms (before)", fresh[0], "ms", how);
        results.add(Phases.LEDGER_SCALE, what + " p99 ms (before)", fresh[1], "ms", "");
        results.add(Phases.LEDGER_SCALE, what + " p50 ms (grown)", grown[0], "ms", "the same, on the grown ledger");
        results.add(Phases.LEDGER_SCALE, what + " p99 ms (grown)", grown[1], "ms", "");
        if (fresh.length > 2) {
            results.add(Phases.LEDGER_SCALE, what + " refused or failed (before, grown)", fresh[2] + grown[2],
                    "requests", "non-2xx answers (e.g. 503 shed) and transport errors: " + (long) fresh[2]
                            + " before, " + (long) grown[2] + " grown; latencies count accepted requests");
        }
    }

    /** p50 and p99 (and, for submissions, how many were not accepted) of submissions and of usage queries. */
    private record Measured(double[] submit, double[] usage) {
    }

    private Measured measure(String prefix, String token, BenchSettings settings) throws Exception {
        // A few seconds unrecorded first: the service was just started (JIT, pools), and the grown ledger's indexes
        // were just written.
        Map<String, JsonNode> steps = context.ingestLoad(prefix, settings.repeatShare(), "none")
                .closedForSeconds(prefix + "-warmup", 8, WARMUP_SECONDS, false)
                .openAtRate(prefix, SUBMIT_RATE, settings.scaleStepSeconds())
                .run(context, "loadgen-" + prefix);
        JsonNode measured = steps.get(prefix);
        JsonNode latency = measured.path("latency");
        double[] submit = {latency.path("p50_ms").asDouble(), latency.path("p99_ms").asDouble(),
                LoadPlan.failures(Map.of(prefix, measured))};
        return new Measured(submit, usageLatency(token, settings.usageQueries()));
    }

    private double[] usageLatency(String token, int queries) throws Exception {
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        URI uri = URI.create(context.ingestUrl() + "/v1/usage?group_by=provider,day"
                + "&from=" + today.minusDays(29) + "&to=" + today.plusDays(1));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest request = HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30)).GET().build();
        double[] millis = new double[queries];
        for (int i = -queries / 10; i < queries; i++) {
            long started = System.nanoTime();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("GET /v1/usage answered " + response.statusCode() + ": "
                        + response.body());
            }
            if (i >= 0) {
                millis[i] = (System.nanoTime() - started) / 1e6;
            }
        }
        Arrays.sort(millis);
        return new double[] {millis[queries / 2], millis[Math.min(queries - 1, (int) Math.ceil(queries * 0.99) - 1)]};
    }

    /**
     * Adds {@code jobs} finished jobs with one attempt each, in chunks on two connections at once (one per core), and
     * a year of daily usage, then analyzes.
     */
    private void grow(long jobs, String owner) throws Exception {
        ExecutorService loaders = Executors.newFixedThreadPool(2);
        AtomicLong added = new AtomicLong();
        try {
            List<Future<?>> chunks = new ArrayList<>();
            for (long from = 1; from <= jobs; from += CHUNK) {
                long first = from;
                long last = Math.min(jobs, from + CHUNK - 1);
                chunks.add(loaders.submit(() -> {
                    context.database().execute(SYNTHETIC_JOBS.formatted(first, last, jobs));
                    Benchmark.say("ledger at scale: " + added.addAndGet(last - first + 1) + " of " + jobs
                            + " jobs added");
                }));
            }
            for (Future<?> chunk : chunks) {
                chunk.get();
            }
        } finally {
            loaders.shutdownNow();
        }
        context.database().execute(SYNTHETIC_USAGE.formatted(SYNTHETIC_OWNERS, owner.replace("'", "''")));
        context.database().execute("ANALYZE jobs");
        context.database().execute("ANALYZE attempts");
        context.database().execute("ANALYZE usage_daily");
    }

    /**
     * Jobs {@code %1$d} to {@code %2$d} of {@code %3$d}: finished (CANCELLED, so no result or winner is needed),
     * spread over a thousand owners, dated in creation order over the last 20 hours, each with one finished attempt.
     */
    private static final String SYNTHETIC_JOBS = """
            WITH made AS (
                INSERT INTO jobs (id, owner_id, idempotency_key, request_fingerprint, request, contract,
                                  target_provider, fallback_providers, status, version, created_at, updated_at,
                                  finished_at)
                SELECT gen_random_uuid(), 'scale-' || (g %% 1000), 'scale-key-' || g,
                       md5(g::text) || md5((g + 1)::text),
                       '{"contract":"sentiment","variables":{"text":"at scale"},"target":"primary",
                         "fallbacks":["backup"]}'::jsonb,
                       'sentiment', 'primary', ARRAY['backup'], 'CANCELLED', 2, t, t, t
                FROM generate_series(%1$d, %2$d) AS g,
                     LATERAL (SELECT now() - interval '20 hours' * (1 - g::float8 / %3$d)) AS c(t)
                RETURNING id, created_at
            )
            INSERT INTO attempts (id, job_id, number, provider, status, job_version, created_at, updated_at,
                                  started_at, finished_at, error_code, error_message)
            SELECT gen_random_uuid(), id, 1, 'primary', 'CANCELLED', 1, created_at, created_at, created_at,
                   created_at, 'cancelled', 'synthetic'
            FROM made""";

    /** A year of daily usage on both providers for {@code %1$d} owners and the measured owner {@code '%2$s'}. */
    private static final String SYNTHETIC_USAGE = """
            INSERT INTO usage_daily (owner_id, day, provider, model, calls, input_tokens, output_tokens,
                                     cached_input_tokens, cost_usd, unpriced_calls)
            SELECT o, (current_date - d), p.provider, p.model, 100, 40000, 3000, 0, 0.0078, 0
            FROM (SELECT 'scale-' || i FROM generate_series(0, %1$d - 1) AS i UNION ALL SELECT '%2$s') AS owners(o),
                 generate_series(1, 365) AS d,
                 (VALUES ('primary', 'gpt-4o-mini'), ('backup', 'claude-sonnet-4-5')) AS p(provider, model)
            ON CONFLICT DO NOTHING""";
}
