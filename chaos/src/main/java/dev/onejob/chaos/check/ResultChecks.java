package dev.onejob.chaos.check;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.chaos.check.RunRecord.Completion;
import dev.onejob.chaos.check.RunRecord.JobResult;
import dev.onejob.chaos.check.RunRecord.JobRow;
import dev.onejob.chaos.check.RunRecord.RaceAudit;
import dev.onejob.core.json.CanonicalJson;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The checks about outcomes: one job-results record per finished job and none for others, the winner's result
 * everywhere a succeeded job's result is, and one race-audit record per discarded result. Consumes the
 * {@code jobs} and {@code attempts} rows and the {@code job-results}, {@code attempt-completions} and
 * {@code race-audit} records; produces anomalies into a {@link CheckReport.Builder}.
 */
final class ResultChecks {
    private static final Set<String> FINISHED = Set.of("SUCCEEDED", "FAILED", "CANCELLED");
    private static final String SUCCEEDED = "SUCCEEDED";

    private final RunRecord run;
    private final CheckReport.Builder report;
    private final Map<String, JobRow> jobs = new LinkedHashMap<>();
    private final Map<String, List<JobResult>> results = new LinkedHashMap<>();

    private ResultChecks(RunRecord run, CheckReport.Builder report) {
        this.run = run;
        this.report = report;
        run.jobs().forEach(job -> jobs.put(job.id(), job));
        run.results().forEach(r -> results.computeIfAbsent(r.jobId(), id -> new ArrayList<>()).add(r));
    }

    static void check(RunRecord run, CheckReport.Builder report) {
        ResultChecks checks = new ResultChecks(run, report);
        checks.resultRecords();
        checks.winnersResults();
        checks.raceAudits();
    }

    private void resultRecords() {
        results.forEach((jobId, records) -> {
            JobRow job = jobs.get(jobId);
            if (records.size() > 1) {
                report.anomaly(AnomalyKind.DUPLICATE_RESULT, "job " + jobId, records.size() + " job-results records");
            }
            if (job == null || !FINISHED.contains(job.status())) {
                report.anomaly(AnomalyKind.RESULT_FOR_UNFINISHED_JOB, "job " + jobId, "a " + records.get(0).status()
                        + " record, but the job is " + (job == null ? "not in the database" : job.status()));
                return;
            }
            records.stream().filter(r -> !job.status().equals(r.status())).forEach(r -> report.anomaly(
                    AnomalyKind.RESULT_STATUS_DIFFERS, "job " + jobId,
                    "the record says " + r.status() + ", the database " + job.status()));
        });
        jobs.values().stream().filter(job -> FINISHED.contains(job.status()) && !results.containsKey(job.id()))
                .forEach(job -> report.anomaly(AnomalyKind.MISSING_RESULT, "job " + job.id(),
                        job.status() + " without a job-results record"));
    }

    /** A succeeded job's result, stored and published, is what its winner's SUCCEEDED completion carried. */
    private void winnersResults() {
        Map<String, List<JsonNode>> answers = new HashMap<>();
        run.completions().stream().filter(c -> SUCCEEDED.equals(c.outcome()))
                .forEach(c -> answers.computeIfAbsent(c.attemptId(), id -> new ArrayList<>()).add(c.result()));
        for (JobRow job : jobs.values()) {
            if (!SUCCEEDED.equals(job.status())) {
                continue;
            }
            List<JsonNode> winners = job.completedBy() == null ? List.of()
                    : answers.getOrDefault(job.completedBy(), List.of());
            if (winners.isEmpty()) {
                notWinners(job, "no SUCCEEDED completion from its winner " + job.completedBy());
                continue;
            }
            JsonNode answer = winners.get(0);
            if (winners.stream().anyMatch(other -> !sameJson(answer, other))) {
                notWinners(job, "its winner " + job.completedBy() + " completed with different results");
            }
            if (!sameJson(answer, job.result())) {
                notWinners(job, "the database's result is not its winner's");
            }
            for (JobResult record : results.getOrDefault(job.id(), List.of())) {
                if (!Objects.equals(job.completedBy(), record.completedBy())) {
                    notWinners(job, "the job-results record names " + record.completedBy() + ", the database "
                            + job.completedBy());
                } else if (!sameJson(answer, record.result())) {
                    notWinners(job, "the job-results record's result is not its winner's");
                }
            }
        }
    }

    private void notWinners(JobRow job, String why) {
        report.anomaly(AnomalyKind.RESULT_NOT_WINNERS, "job " + job.id(), why);
    }

    /**
     * Every SUCCEEDED completion of an attempt that is not its job's winner is a discarded result, audited exactly
     * once, however often the completion itself was delivered.
     */
    private void raceAudits() {
        Map<String, String> attemptJobs = new HashMap<>();
        run.attempts().forEach(a -> attemptJobs.put(a.id(), a.jobId()));
        Set<String> discarded = new LinkedHashSet<>();
        for (Completion c : run.completions()) {
            JobRow job = jobs.get(attemptJobs.getOrDefault(c.attemptId(), c.jobId()));
            if (SUCCEEDED.equals(c.outcome()) && (job == null || !c.attemptId().equals(job.completedBy()))) {
                discarded.add(c.attemptId());
            }
        }
        Map<String, Integer> audits = new LinkedHashMap<>();
        run.raceAudits().forEach(a -> audits.merge(a.losingAttempt(), 1, Integer::sum));
        discarded.stream().filter(id -> !audits.containsKey(id)).forEach(id -> report.anomaly(
                AnomalyKind.RACE_AUDIT_MISSING, "attempt " + id, "a discarded SUCCEEDED result without a race-audit"));
        audits.forEach((id, count) -> {
            if (count > 1) {
                report.anomaly(AnomalyKind.RACE_AUDIT_DUPLICATED, "attempt " + id, count + " race-audit records");
            }
        });
        for (RaceAudit audit : run.raceAudits()) {
            JobRow job = jobs.get(audit.jobId());
            if (job != null && audit.losingAttempt() != null && audit.losingAttempt().equals(job.completedBy())) {
                report.anomaly(AnomalyKind.RACE_AUDIT_NAMES_WINNER, "attempt " + audit.losingAttempt(),
                        "named as the loser of job " + job.id() + ", which it won");
            }
        }
    }

    /** JSON equality as values: key order and number spelling (1 vs 1.0) do not matter; a JSON null is null. */
    static boolean sameJson(JsonNode a, JsonNode b) {
        boolean aNull = a == null || a.isNull() || a.isMissingNode();
        boolean bNull = b == null || b.isNull() || b.isMissingNode();
        if (aNull || bNull) {
            return aNull && bNull;
        }
        return CanonicalJson.canonicalize(a).equals(CanonicalJson.canonicalize(b));
    }
}
