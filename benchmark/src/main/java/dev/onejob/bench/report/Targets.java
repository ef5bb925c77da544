package dev.onejob.bench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * The targets, as ratios of figures measured side by side in the same run, and for each what would close the gap
 * when it is missed. A target whose inputs were not measured is reported as such, never guessed.
 */
public final class Targets {
    /** One target's outcome. {@code met == null}: its inputs were not measured. */
    public record Check(String id, String target, String formula, Double ratio, String threshold, Boolean met,
                        List<String> profilePhases, String closeTheGap) {
        public String status() {
            return met == null ? "NOT MEASURED" : met ? "MET" : "MISSED";
        }
    }

    public static final String PG_INSERT_8 = "insert tps, 8 clients";

    private Targets() {
    }

    public static List<Check> evaluate(Results results) {
        Double pg = results.value(Phases.PGBENCH, PG_INSERT_8);
        List<Check> checks = new ArrayList<>();
        checks.add(atLeast("kafka-ingest", "Kafka ingest >= 1.0x the pgbench single-row insert rate at 8 clients",
                "Kafka ingest job requests/s / pgbench insert tps (8 clients)",
                results.value(Phases.KAFKA_INGEST, "job requests/s"), pg, 1.0, List.of(Phases.KAFKA_INGEST),
                "Each poll is one transaction with one statement per table (jobs, the existing keys, first "
                        + "attempts, outbox rows), so the intake's round trips are a few per poll; the phase's time "
                        + "is now PostgreSQL writing three indexed rows and a jsonb per job, the outbox relay leasing, "
                        + "publishing and marking those rows in its own transactions, and the answers on "
                        + "job-request-outcomes built and serialised one record at a time (Json.write in the "
                        + "profile). A relay that claims hundreds of rows per Kafka transaction and marks them in one "
                        + "statement, and answers written without a JSON tree, are what is left."));
        checks.add(atLeast("http-ingest", "HTTP ingest max throughput >= 0.5x that rate",
                "max POST /v1/jobs answers/s / pgbench insert tps (8 clients)",
                results.value(Phases.HTTP_INGEST, "max requests/s"), pg, 0.5, List.of(Phases.HTTP_INGEST),
                "Every HTTP request is its own PostgreSQL transaction with its own commit (a WAL flush each); "
                        + "grouping the submissions that arrive within a millisecond into one transaction (the "
                        + "Kafka consumer's batch path) or synchronous_commit=off for the outbox-only tail would "
                        + "share the flush, and the JDK HttpServer's per-connection overhead can go with a "
                        + "non-blocking server."));
        Double p50 = results.value(Phases.HTTP_INGEST, "p50 ms at 50% load");
        Double p99 = results.value(Phases.HTTP_INGEST, "p99 ms at 50% load");
        Double tail = p50 == null || p99 == null || p50 == 0 ? null : p99 / p50;
        checks.add(new Check("http-tail", "p99 at 50% load under 10x p50", "HTTP p99 / p50 at 50% of max throughput",
                tail, "< 10", tail == null ? null : tail < 10, List.of(Phases.HTTP_INGEST),
                "The tail comes from requests that wait for a pool connection or a commit behind a stalled one "
                        + "(GC, a checkpoint, the 2 shared cores); a pool sized to the cores and HTTP threads equal "
                        + "to the pool would queue in one place instead of two."));
        checks.add(atLeast("end-to-end", "End to end >= 0.25x the pgbench rate",
                "end-to-end jobs/s (saturated) / pgbench insert tps (8 clients)",
                results.value(Phases.END_TO_END, "jobs/s (saturated)"), pg, 0.25, List.of(Phases.END_TO_END),
                "A job takes three PostgreSQL transactions of its own across three services (submit; the worker's "
                        + "PENDING->STARTING; the reconciler's completion) plus its share of the relay's lease and "
                        + "mark-sent batches, and four Kafka hops, two of them transactional (the relay; Streams "
                        + "exactly_once_v2, which commits every 100 ms); batching the worker's transitions per poll "
                        + "and the reconciler's completions per Streams commit would cut the per-job transactions."));
        checks.add(atLeast("vs-dbos", "onejob / DBOS >= 1.5", "onejob end-to-end jobs/s / DBOS jobs/s (saturated)",
                results.value(Phases.END_TO_END, "jobs/s (saturated)"), results.value(Phases.DBOS,
                        "jobs/s (saturated)"), 1.5, List.of(Phases.END_TO_END, Phases.DBOS),
                "DBOS runs a job in one process with two or three PostgreSQL writes; onejob spends its extra "
                        + "transactions and Kafka hops on what DBOS does not do (outbox events for other consumers, a "
                        + "ledger of attempts with failover, race audit). The same batching as above closes most of it."));
        Double rss = maxServiceRss(results);
        checks.add(new Check("memory", "each service under 512 MiB RSS",
                "largest peak RSS of ingest, worker, reconciler / 512 MiB", rss == null ? null : rss / 512.0, "< 1",
                rss == null ? null : rss < 512, List.of(),
                "The services run with the JVM's default heap (a quarter of the machine's memory as the maximum); "
                        + "-Xmx256m or -XX:MaxRAMPercentage in the service containers caps the heap, and the heap "
                        + "they actually use (see the memory table) is far below that."));
        return checks;
    }

    private static Check atLeast(String id, String target, String formula, Double numerator, Double denominator,
                                 double threshold, List<String> profilePhases, String closeTheGap) {
        Double ratio = numerator == null || denominator == null || denominator == 0 ? null : numerator / denominator;
        return new Check(id, target, formula, ratio, ">= " + threshold, ratio == null ? null : ratio >= threshold,
                profilePhases, closeTheGap);
    }

    private static Double maxServiceRss(Results results) {
        return results.memory().stream()
                .filter(m -> List.of("ingest-service", "attempt-worker", "result-reconciler").contains(m.process()))
                .map(m -> m.peakRssMib()).max(Double::compare).orElse(null);
    }
}
