package dev.onejob.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.Results;
import dev.onejob.core.kafka.Topics;
import dev.onejob.worker.AttemptWorker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Phase 7, end to end: an HTTP job request to its {@code job-results} record, seen by a read_committed consumer in
 * the load generator's JVM, through ingest, one attempt worker and the reconciler (each its own process) and the
 * zero-latency simulators. The worker's group first skips the attempt commands of phases 3 to 6 (their jobs stay
 * QUEUED), so only this phase's jobs are called. Runs: saturated (a burst in closed loop with as many clients as the
 * peer's, each waiting for its job's result before its next request, as the peer's clients do; jobs/s from the first
 * request to the last result), 50% of that rate in open loop, and the same rate again with every 20th new job
 * hanging at the primary past its soft timeout: the attempt goes UNKNOWN, the {@link OperatorBot} resolves it FAILED
 * and the job fails over to the backup in the same transaction.
 */
record EndToEndPhase(BenchContext context) {
    void run() throws Exception {
        BenchSettings settings = context.settings();
        // The HTTP phases accept tens of thousands of jobs faster than the relay publishes their rows: let it finish
        // first, or its work falls in this phase's window (CPU per job, calls starved past their soft timeout).
        awaitOutboxDrained(Duration.ofMinutes(5));
        KafkaSupport.skipToEnd(context.kafka().bootstrapServers(), AttemptWorker.GROUP_ID,
                Topics.ATTEMPT_COMMANDS.name());
        context.services().startWorkerAndReconciler();
        context.results().settings().put("certification", certifyAll());
        for (String simulator : List.of(context.services().primaryUrl(), context.services().backupUrl())) {
            Invariants.ledger(simulator).forEach(e -> context.certificationCalls().add(e.path("idempotency_key")
                    .asText("")));
        }
        LoadPlan plan = context.ingestLoad("e2e", settings.repeatShare(), "kafka")
                .awaitingKafka(context.kafka().bootstrapServers(), Services.HANG_MARKER)
                .closedForRequests("warmup", 16, settings.e2eWarmupRequests(), false)
                .closedAwaitingEach("burst", settings.e2eConcurrency(), settings.e2eBurstRequests())
                .openAtShareOfMax("latency", 0.5, settings.e2eRateSeconds(), 0)
                .openAtShareOfMax("timeouts", 0.5, settings.e2eRateSeconds(), settings.hangEvery());
        Map<String, JsonNode> steps;
        long resolved;
        try (OperatorBot operator = new OperatorBot(context.database(), context.services().ingestPort(),
                context.files().operatorToken());
             var window = context.window(Phases.END_TO_END, context.services().onejobProcesses())) {
            steps = plan.run(context, "loadgen-e2e");
            resolved = operator.resolvedCount();
        }
        context.expectedJobs().put("e2e", LoadPlan.acceptedJobs(steps));
        Results results = context.results();
        record(results, steps.get("burst"), "(saturated)", settings.e2eConcurrency() + " concurrent clients, each "
                + "waiting for its job's job-results record; " + settings.e2eBurstRequests() + " requests");
        record(results, steps.get("latency"), "at 50% load", "open loop");
        new LedgerHops(context).record("e2e-latency");
        record(results, steps.get("timeouts"), "with 5% timeouts", "open loop, same rate; every "
                + settings.hangEvery() + "th new job hangs at primary");
        long failovers = context.database().count("SELECT count(*) FROM attempts a JOIN jobs j ON j.id = a.job_id "
                + "WHERE j.idempotency_key LIKE 'e2e-timeouts-%' AND a.provider = 'backup'");
        results.add(Phases.END_TO_END, "failovers to backup (timeout run)", failovers, "jobs",
                "primary soft timeout " + BenchFiles.PRIMARY_SOFT_TIMEOUT + ", then the operator's resolve");
        results.add(Phases.END_TO_END, "operator resolutions (all runs)", resolved, "attempts",
                "UNKNOWN attempts resolved FAILED by the benchmark's operator");
        results.add(Phases.END_TO_END, "failed requests", LoadPlan.failures(steps), "requests",
                "non-2xx answers and transport errors over all runs");
        long failed = context.database().count("SELECT count(*) FROM jobs WHERE idempotency_key LIKE 'e2e-%' "
                + "AND status <> 'SUCCEEDED'");
        String reason = context.database().text("SELECT error_message FROM jobs WHERE idempotency_key LIKE 'e2e-%' "
                + "AND status = 'FAILED' LIMIT 1");
        results.add(Phases.END_TO_END, "jobs not SUCCEEDED", failed, "jobs", reason == null ? "" : "e.g. " + reason);
        long swept = context.services().reconcilerLogCount("event=swept_unknown attempts=(\\d+)");
        results.add(Phases.END_TO_END, "attempts the sweeper made UNKNOWN", swept, "attempts",
                "STARTING past abandon_after (the hard timeout, " + BenchFiles.PRIMARY_HARD_TIMEOUT
                        + ", plus 5 s after the start) in the ledger: attempts whose worker vanished, or whose "
                        + "outcome was still queued behind the reconciler that long");
    }

    /** Certifies every (provider, contract) pair through the API, as an operator does before failover may use them. */
    private String certifyAll() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(context.ingestUrl() + "/v1/certifications"))
                .timeout(Duration.ofSeconds(180))
                .header("Authorization", "Bearer " + context.files().operatorToken())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"all\": true}")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("certifying the providers failed: HTTP " + response.statusCode() + " "
                    + response.body());
        }
        return "POST /v1/certifications {\"all\": true} before the end-to-end runs: HTTP " + response.statusCode();
    }

    private void awaitOutboxDrained(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        long unsent;
        while ((unsent = context.database().count("SELECT count(*) FROM outbox WHERE sent_at IS NULL AND parked_at "
                + "IS NULL")) > 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the outbox still held " + unsent + " unsent rows after " + limit);
            }
            Thread.sleep(200);
        }
    }

    private static void record(Results results, JsonNode step, String label, String note) {
        JsonNode e2e = step.path("end_to_end");
        String detail = e2e.path("completed").asLong() + " of " + e2e.path("jobs").asLong() + " jobs"
                + (e2e.path("refused_keys").asLong() > 0 ? " (" + e2e.path("refused_keys").asLong()
                + " keys only ever refused: no job)" : "") + "; " + note
                + (step.path("target_rate").asDouble() > 0
                ? String.format("; %.0f requests/s offered", step.path("target_rate").asDouble()) : "");
        if (e2e.path("missing").asLong() > 0) {
            results.notMeasured(Phases.END_TO_END, "jobs/s " + label, "jobs/s", e2e.path("missing").asLong()
                    + " jobs had no result within the time limit (" + detail + ")");
            return;
        }
        results.add(Phases.END_TO_END, "jobs/s " + label, e2e.path("jobs_per_second").asDouble(), "jobs/s", detail);
        results.add(Phases.END_TO_END, "p50 ms " + label, e2e.path("latency").path("p50_ms").asDouble(), "ms",
                "request to job-results record");
        results.add(Phases.END_TO_END, "p99 ms " + label, e2e.path("latency").path("p99_ms").asDouble(), "ms", "");
    }
}
