package dev.onejob.chaos.check;

import dev.onejob.chaos.check.RunRecord.AttemptRow;
import dev.onejob.chaos.check.RunRecord.JobRow;
import dev.onejob.chaos.check.RunRecord.ProviderCall;
import dev.onejob.chaos.history.Op;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
    private final FaultTimeline faults;

    private AttemptChecks(RunRecord run, CheckReport.Builder report) {
        this.run = run;
        this.report = report;
        run.attempts().forEach(a -> attempts.put(a.id(), a));
        this.faults = new FaultTimeline(run);
    }

    static void check(RunRecord run, CheckReport.Builder report) {
        AttemptChecks checks = new AttemptChecks(run, report);
        checks.providerCalls();
        checks.outcomesWithoutCall();
        checks.paidAnswersLost();
        checks.secondPaidCalls();
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

    /**
     * Started attempts whose outcome says a request left, without any call at a provider. Excused: a worker killed
     * within {@link FaultTimeline#KILL_WINDOW_MS} after the start (that crash may well have come between the two), and
     * an attempt on a provider that was dropping its connections then (the request may have been written onto a dying
     * connection: UNKNOWN is then the truth as the worker can know it, and the provider never logged it).
     */
    private void outcomesWithoutCall() {
        Set<String> called = attemptCalls(run).stream().map(ProviderCall::idempotencyKey).collect(Collectors.toSet());
        for (AttemptRow attempt : attempts.values()) {
            if (attempt.startedAt() == null || called.contains(attempt.id()) || !claimsARequest(attempt)) {
                continue;
            }
            long started = attempt.startedAt().toEpochMilli();
            if (!faults.workerKilledAround(started) && !faults.inOutage(attempt.provider(), started, started)) {
                report.anomaly(AnomalyKind.OUTCOME_WITHOUT_CALL, "attempt " + attempt.id(), attempt.status()
                        + (attempt.errorCode() == null ? "" : " " + attempt.errorCode()) + " (started "
                        + attempt.startedAt() + ") but no provider saw a call for it");
            }
        }
    }

    /**
     * Paid answers that never became a completion: an attempt whose call sent a usable answer in time
     * ({@link ProviderCall#deliveredUsableAnswer()}) without any SUCCEEDED record of it on {@code attempt-completions},
     * started and not its job's winner (a call before the start, or a winner's missing record, are other checks').
     * Excused: a worker killed or frozen while the attempt was live (the answer was in that worker's memory only), and
     * an answer due while its provider was dropping its connections (the simulator logs the status before it writes
     * the answer, onto a connection it may be closing), and, for a long stream only, a worker stopped with SIGTERM
     * while it flowed (its drain outlasts every other call, not a minute-long stream); nothing else, since the worker
     * publishes until the broker has it and drains on SIGTERM.
     */
    private void paidAnswersLost() {
        Set<String> succeeded = run.completions().stream().filter(c -> "SUCCEEDED".equals(c.outcome()))
                .map(RunRecord.Completion::attemptId).collect(Collectors.toSet());
        Set<String> winners = run.jobs().stream().map(JobRow::completedBy).filter(Objects::nonNull)
                .collect(Collectors.toSet());
        Map<String, Long> receivedAt = new HashMap<>();
        Map<String, Long> answeredAt = new HashMap<>();
        for (ProviderCall call : attemptCalls(run)) {
            if (call.deliveredUsableAnswer()) {
                long received = call.receivedAt() == null ? Long.MIN_VALUE : call.receivedAt().toEpochMilli();
                receivedAt.put(call.idempotencyKey(), received);
                answeredAt.put(call.idempotencyKey(), call.receivedAt() == null ? Long.MIN_VALUE
                        : received + answerDelay(call));
            }
        }
        Set<String> streams = attemptCalls(run).stream().filter(c -> ProviderCall.PACED.equals(c.behaviour()))
                .map(ProviderCall::idempotencyKey).collect(Collectors.toSet());
        for (String id : receivedAt.keySet()) {
            AttemptRow attempt = attempts.get(id);
            boolean terminatedWhileStreaming = streams.contains(id)
                    && faults.workerTerminatedBetween(receivedAt.get(id), answeredAt.get(id));
            if (attempt.startedAt() != null && !succeeded.contains(id) && !winners.contains(id)
                    && !terminatedWhileStreaming && !faults.workerFaultBefore(attempt, answeredAt.get(id))
                    && !faults.inOutage(attempt.provider(), receivedAt.get(id), answeredAt.get(id))) {
                report.anomaly(AnomalyKind.PAID_ANSWER_LOST, "attempt " + id, "its provider sent a usable answer"
                        + " (status 200) but no SUCCEEDED completion reached attempt-completions (" + attempt.status()
                        + ")");
            }
        }
    }

    /** How long after its request a call's answer may come: a late answer's delay, a long stream's length. */
    private static long answerDelay(ProviderCall call) {
        return "hang".equals(call.behaviour()) ? FaultTimeline.LATE_ANSWER_MS
                : ProviderCall.PACED.equals(call.behaviour()) ? FaultTimeline.LONG_STREAM_MS : 0;
    }

    /**
     * Jobs paid more than once without a reason: a job with paid calls for several attempts, where an earlier paid
     * attempt had a usable answer (so no definite failure of that answer explains the next attempt), was not
     * resolved by an operator (whose call it is to resolve an UNKNOWN attempt whose provider may yet answer; those
     * are counted in {@link RunFigures#PAID_TWICE_AFTER_A_RESOLVE}), and lost no worker while it was live.
     */
    private void secondPaidCalls() {
        Set<String> resolved = resolvedByAnOperator(run);
        paidAttemptsByJob(run).forEach((jobId, paid) -> {
            for (AttemptRow earlier : paid.subList(0, paid.size() - 1)) {
                if (!deliveredUsableAnswer(run, earlier.id()) || resolved.contains(earlier.id())
                        || faults.workerFaultDuring(earlier)) {
                    continue;
                }
                report.anomaly(AnomalyKind.SECOND_PAID_CALL, "job " + jobId, paid.size() + " paid attempts; attempt "
                        + earlier.number() + " (" + earlier.status() + ", started " + earlier.startedAt()
                        + ") was sent a usable answer, and no operator resolved it");
            }
        });
    }

    /** Jobs with paid calls for more than one attempt, each with its paid attempts in attempt order. */
    static Map<String, List<AttemptRow>> paidAttemptsByJob(RunRecord run) {
        Set<String> paid = attemptCalls(run).stream().filter(ProviderCall::paid).map(ProviderCall::idempotencyKey)
                .collect(Collectors.toSet());
        Map<String, List<AttemptRow>> byJob = new LinkedHashMap<>();
        run.attempts().stream().filter(a -> paid.contains(a.id()))
                .forEach(a -> byJob.computeIfAbsent(a.jobId(), j -> new ArrayList<>()).add(a));
        byJob.values().removeIf(list -> list.size() < 2);
        byJob.values().forEach(list -> list.sort(Comparator.comparingInt(AttemptRow::number)));
        return byJob;
    }

    static boolean deliveredUsableAnswer(RunRecord run, String attemptId) {
        return attemptCalls(run).stream()
                .anyMatch(c -> c.idempotencyKey().equals(attemptId) && c.deliveredUsableAnswer());
    }

    /** Attempts an operator asked to resolve (the history's resolve invocations; the attempt id is their key). */
    static Set<String> resolvedByAnOperator(RunRecord run) {
        return run.ops().stream().filter(op -> "resolve".equals(op.f()) && Op.INVOKE.equals(
                op.type()) && op.key() != null).map(Op::key).collect(Collectors.toSet());
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
                    if (later.createdAt().isBefore(FaultTimeline.end(earlier))) {
                        report.anomaly(AnomalyKind.OVERLAPPING_ATTEMPTS, "job " + jobId, "attempt "
                                + earlier.number() + " (" + earlier.status() + ", " + earlier.createdAt() + " to "
                                + earlier.finishedAt() + ") and attempt " + later.number() + " (created "
                                + later.createdAt() + ")");
                    }
                }
            }
        });
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
        long repeated = 0;
        for (AttemptRow attempt : attempts.values()) {
            int count = commands.getOrDefault(attempt.id(), 0);
            if (count == 0 && attempt.startedAt() != null) {
                report.anomaly(AnomalyKind.ATTEMPT_COMMAND_MISSING, "attempt " + attempt.id(),
                        "started (" + attempt.status() + ") without an attempt-commands record");
            } else if (count > 1) {
                repeated++;
            }
        }
        report.figure(RunFigures.COMMANDS_REPEATED, repeated);
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
