package dev.onejob.chaos.check;

import dev.onejob.chaos.check.RunRecord.AttemptRow;
import dev.onejob.chaos.check.RunRecord.JobRow;
import dev.onejob.chaos.check.RunRecord.ProviderCall;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The checks about attempts: at most one provider call each and only once started, one live attempt per job at a
 * time, one command each, and nothing left waiting for a component after the drain. Consumes the {@code jobs} and
 * {@code attempts} rows, the {@code attempt-commands} records and the simulators' ledgers; produces anomalies into a
 * {@link CheckReport.Builder}.
 */
final class AttemptChecks {
    /** Ledger entries of this protocol are token counts made before a call, not calls. */
    static final String COUNT_TOKENS_PROTOCOL = "anthropic-count-tokens";
    private static final Set<String> UNATTENDED_ATTEMPT = Set.of("PENDING", "STARTING");
    private static final Set<String> UNATTENDED_JOB = Set.of("QUEUED", "RUNNING");

    private final RunRecord run;
    private final CheckReport.Builder report;
    private final Map<String, AttemptRow> attempts = new LinkedHashMap<>();

    private AttemptChecks(RunRecord run, CheckReport.Builder report) {
        this.run = run;
        this.report = report;
        run.attempts().forEach(a -> attempts.put(a.id(), a));
    }

    static void check(RunRecord run, CheckReport.Builder report) {
        AttemptChecks checks = new AttemptChecks(run, report);
        checks.providerCalls();
        checks.outcomesWithoutCall();
        checks.overlappingAttempts();
        checks.stuck();
        checks.attemptCommands();
    }

    /** The ledger entries that are calls made by an attempt of this run (certification runs use other keys). */
    static List<ProviderCall> attemptCalls(RunRecord run) {
        Set<String> ids = run.attempts().stream().map(AttemptRow::id).collect(Collectors.toSet());
        return run.calls().stream()
                .filter(c -> !COUNT_TOKENS_PROTOCOL.equals(c.protocol()) && ids.contains(c.idempotencyKey()))
                .toList();
    }

    private void providerCalls() {
        Map<String, List<ProviderCall>> calls = new LinkedHashMap<>();
        attemptCalls(run).forEach(c -> calls.computeIfAbsent(c.idempotencyKey(), k -> new ArrayList<>()).add(c));
        calls.forEach((id, made) -> {
            if (made.size() > 1) {
                report.anomaly(AnomalyKind.DOUBLE_CALL, "attempt " + id, made.size() + " calls, at "
                        + made.stream().map(ProviderCall::simulator).collect(Collectors.joining(", ")));
            }
            AttemptRow attempt = attempts.get(id);
            if (attempt.startedAt() == null) {
                report.anomaly(AnomalyKind.CALL_WITHOUT_START, "attempt " + id,
                        "called at " + made.get(0).simulator() + " but never started (" + attempt.status() + ")");
            }
        });
    }

    /** How long after an attempt's start a worker kill may cut it off before the request leaves. */
    static final long KILL_WINDOW_MS = 3_000;

    /** A provider outage as the history records it: "provider-outage primary refuses connections for 20 s". */
    private static final java.util.regex.Pattern OUTAGE =
            java.util.regex.Pattern.compile("provider-outage (\\S+) refuses connections for (\\d+) s");
    /** Around an outage: a call may be written onto a connection the provider is dropping, and never be seen. */
    static final long OUTAGE_MARGIN_MS = 2_000;

    /**
     * Started attempts whose outcome says a request left, without any call at a provider. Excused: a worker killed
     * within {@link #KILL_WINDOW_MS} after the start (that crash may well have come between the two), and an attempt
     * on a provider that was dropping its connections then (the request may have been written onto a dying
     * connection: UNKNOWN is then the truth as the worker can know it, and the provider never logged it).
     */
    private void outcomesWithoutCall() {
        Set<String> called = attemptCalls(run).stream().map(ProviderCall::idempotencyKey).collect(Collectors.toSet());
        List<Long> workerKills = run.ops().stream().filter(op -> "fault".equals(op.f()) && op.detail() != null
                        && op.detail().contains("worker-") && op.detail().contains("kill -9"))
                .map(dev.onejob.chaos.history.Op::time).toList();
        List<long[]> outages = new ArrayList<>();
        Map<Integer, String> outageProvider = new HashMap<>();
        run.ops().stream().filter(op -> "fault".equals(op.f()) && op.detail() != null).forEach(op -> {
            java.util.regex.Matcher outage = OUTAGE.matcher(op.detail());
            if (outage.find()) {
                outageProvider.put(outages.size(), outage.group(1));
                outages.add(new long[] {op.time() - OUTAGE_MARGIN_MS,
                        op.time() + Long.parseLong(outage.group(2)) * 1000 + OUTAGE_MARGIN_MS});
            }
        });
        for (AttemptRow attempt : attempts.values()) {
            if (attempt.startedAt() == null || called.contains(attempt.id()) || !claimsARequest(attempt)) {
                continue;
            }
            long started = attempt.startedAt().toEpochMilli();
            boolean excused = workerKills.stream().anyMatch(kill -> kill >= started - 1_000
                    && kill <= started + KILL_WINDOW_MS);
            for (int i = 0; i < outages.size() && !excused; i++) {
                excused = outageProvider.get(i).equals(attempt.provider()) && started >= outages.get(i)[0]
                        && started <= outages.get(i)[1];
            }
            if (!excused) {
                report.anomaly(AnomalyKind.OUTCOME_WITHOUT_CALL, "attempt " + attempt.id(), attempt.status()
                        + (attempt.errorCode() == null ? "" : " " + attempt.errorCode()) + " (started "
                        + attempt.startedAt() + ") but no provider saw a call for it");
            }
        }
    }

    /** UNKNOWN, resolved out of band (it was UNKNOWN or overdue), or FAILED with what only an answer gives. */
    private static boolean claimsARequest(AttemptRow attempt) {
        if ("UNKNOWN".equals(attempt.status())) {
            return true;
        }
        String message = attempt.errorMessage() == null ? "" : attempt.errorMessage();
        if (("FAILED".equals(attempt.status()) || "CANCELLED".equals(attempt.status()))
                && message.startsWith("resolved by ")) {
            return true;
        }
        String code = attempt.errorCode() == null ? "" : attempt.errorCode();
        return "FAILED".equals(attempt.status()) && (code.startsWith("http_") || code.equals("contract_violation")
                || code.equals("invalid_answer"));
    }

    /** Attempts live over [created_at, finished_at); one ending as the next begins (one transaction) is fine. */
    private void overlappingAttempts() {
        Map<String, List<AttemptRow>> byJob = new LinkedHashMap<>();
        run.attempts().forEach(a -> byJob.computeIfAbsent(a.jobId(), j -> new ArrayList<>()).add(a));
        byJob.forEach((jobId, list) -> {
            List<AttemptRow> sorted = new ArrayList<>(list);
            sorted.sort(Comparator.comparing(AttemptRow::createdAt).thenComparingInt(AttemptRow::number));
            for (int i = 0; i < sorted.size(); i++) {
                for (int j = i + 1; j < sorted.size(); j++) {
                    AttemptRow earlier = sorted.get(i);
                    AttemptRow later = sorted.get(j);
                    if (later.createdAt().isBefore(end(earlier))) {
                        report.anomaly(AnomalyKind.OVERLAPPING_ATTEMPTS, "job " + jobId, "attempt "
                                + earlier.number() + " (" + earlier.status() + ", " + earlier.createdAt() + " to "
                                + earlier.finishedAt() + ") and attempt " + later.number() + " (created "
                                + later.createdAt() + ")");
                    }
                }
            }
        });
    }

    private static Instant end(AttemptRow attempt) {
        return attempt.finishedAt() == null ? Instant.MAX : attempt.finishedAt();
    }

    /** What waits for a person (an UNKNOWN attempt, NEEDS_ACTION) is a figure; what waits for a component is stuck. */
    private void stuck() {
        Set<String> jobsWithUnknownAttempt = jobsWithUnknownAttempt(run);
        run.attempts().stream().filter(a -> UNATTENDED_ATTEMPT.contains(a.status())).forEach(a -> report.anomaly(
                AnomalyKind.STUCK, "attempt " + a.id(), "still " + a.status() + " after the drain (job " + a.jobId()
                        + ")"));
        for (JobRow job : run.jobs()) {
            if (UNATTENDED_JOB.contains(job.status())) {
                report.anomaly(AnomalyKind.STUCK, "job " + job.id(), "still " + job.status() + " after the drain");
            } else if ("UNKNOWN".equals(job.status()) && !jobsWithUnknownAttempt.contains(job.id())) {
                report.anomaly(AnomalyKind.STUCK, "job " + job.id(), "UNKNOWN without an UNKNOWN attempt to resolve");
            }
        }
    }

    private void attemptCommands() {
        Map<String, Integer> commands = new HashMap<>();
        run.commands().stream().filter(c -> attempts.containsKey(c.attemptId()))
                .forEach(c -> commands.merge(c.attemptId(), 1, Integer::sum));
        for (AttemptRow attempt : attempts.values()) {
            int count = commands.getOrDefault(attempt.id(), 0);
            if (count == 0 && attempt.startedAt() != null) {
                report.anomaly(AnomalyKind.ATTEMPT_COMMAND_MISSING, "attempt " + attempt.id(),
                        "started (" + attempt.status() + ") without an attempt-commands record");
            } else if (count > 1) {
                report.anomaly(AnomalyKind.ATTEMPT_COMMAND_DUPLICATED, "attempt " + attempt.id(),
                        count + " attempt-commands records");
            }
        }
    }

    /** Jobs waiting for a person: NEEDS_ACTION, or UNKNOWN with an UNKNOWN attempt to resolve. */
    static long awaitingResolution(RunRecord run) {
        Set<String> jobsWithUnknownAttempt = jobsWithUnknownAttempt(run);
        return run.jobs().stream().filter(job -> "NEEDS_ACTION".equals(job.status())
                || "UNKNOWN".equals(job.status()) && jobsWithUnknownAttempt.contains(job.id())).count();
    }

    private static Set<String> jobsWithUnknownAttempt(RunRecord run) {
        return run.attempts().stream().filter(a -> "UNKNOWN".equals(a.status())).map(AttemptRow::jobId)
                .collect(Collectors.toSet());
    }
}
