package dev.onejob.bench;

import dev.onejob.bench.report.Phases;
import dev.onejob.bench.report.Results;
import java.util.List;

/**
 * Where an end-to-end job's time goes, from the ledger's own timestamps: for each job of the open-loop run at 50%
 * load whose first attempt succeeded, the time from its intake's commit to its attempt command's publication (the
 * outbox row's {@code sent_at}), to the attempt's start, to its end (the call, {@code attempt-completions} and the
 * reconciler's compare-and-swap), and to its {@code job-results} row's publication; p50 and p99 of each hop, as
 * figures of the end-to-end phase.
 *
 * <p>Every timestamp is PostgreSQL's {@code now()} in the transaction that wrote it, so each is when that
 * transaction began; a row's {@code sent_at} is written after the broker acknowledged it, so a worker may start the
 * attempt first, and that hop can read below zero. What the table cannot see is the caller's side: HTTP in and the
 * result's way from {@code job-results} to the waiting client, the difference to the end-to-end p50.
 */
record LedgerHops(BenchContext context) {
    private static final List<String[]> HOPS = List.of(
            new String[] {"intake to command published", "c.sent_at - j.created_at",
                "the intake's transaction to the relay marking the attempt-commands row sent"},
            new String[] {"command published to attempt started", "a.started_at - c.sent_at",
                "Kafka, the worker's poll and its start statement (below zero: the start came before the mark)"},
            new String[] {"attempt started to finished", "a.finished_at - a.started_at",
                "the provider call, attempt-completions and the reconciler's compare-and-swap"},
            new String[] {"finished to result published", "r.sent_at - a.finished_at",
                "the relay publishing the job-results row"},
            new String[] {"intake to result published", "r.sent_at - j.created_at", "the whole way in the ledger"});

    void record(String keyPrefix) {
        Results results = context.results();
        StringBuilder sql = new StringBuilder("SELECT count(*)");
        for (String[] hop : HOPS) {
            String ms = "extract(epoch FROM " + hop[1] + ") * 1000";
            sql.append(", percentile_cont(0.5) WITHIN GROUP (ORDER BY ").append(ms).append(")")
                    .append(", percentile_cont(0.99) WITHIN GROUP (ORDER BY ").append(ms).append(")");
        }
        sql.append(" FROM jobs j JOIN attempts a ON a.job_id = j.id AND a.number = 1 AND a.status = 'SUCCEEDED'")
                .append(" JOIN outbox c ON c.topic = 'attempt-commands' AND c.dedupe_key = a.id::text")
                .append(" JOIN outbox r ON r.topic = 'job-results' AND r.dedupe_key = j.id::text")
                .append(" WHERE j.idempotency_key LIKE ?");
        List<String> row = context.database().query(sql.toString(), keyPrefix + "-%").get(0);
        long jobs = Long.parseLong(row.get(0));
        if (jobs == 0) {
            results.notMeasured(Phases.END_TO_END, "hops", "ms", "no job of " + keyPrefix + " had its first "
                    + "attempt succeed with both outbox rows still in the ledger");
            return;
        }
        for (int i = 0; i < HOPS.size(); i++) {
            String[] hop = HOPS.get(i);
            results.add(Phases.END_TO_END, hop[0] + ", p50 ms", Double.parseDouble(row.get(1 + 2 * i)), "ms",
                    hop[2] + (i == 0 ? "; " + jobs + " jobs of the open loop at 50% load" : ""));
            results.add(Phases.END_TO_END, hop[0] + ", p99 ms", Double.parseDouble(row.get(2 + 2 * i)), "ms",
                    "");
        }
    }
}
