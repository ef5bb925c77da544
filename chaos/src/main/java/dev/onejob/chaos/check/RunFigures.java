package dev.onejob.chaos.check;

import dev.onejob.chaos.history.Op;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.core.ledger.JobStatus;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The figures of a run, counted from the record (never from a service's own counters), in the order the report
 * prints them, each under the name the report shows. Names of the form {@code "jobs " + status},
 * {@code "attempts " + status} and {@code "faults " + kind} are one figure per status or fault kind; the constants
 * name the figures other classes add or read.
 */
public final class RunFigures {
    /** Dead letters naming a source record already dead-lettered (a redelivery after a crash, not a second poison). */
    public static final String DEAD_LETTERS_REPEATED = "dead letters repeated for one source record";
    /**
     * Attempts whose command reached attempt-commands more than once: commands are relayed at least once (a relay
     * killed between the broker's acknowledgement and its mark sends the row again), and a copy starts nothing, which
     * the double-call and call-without-start checks hold.
     */
    public static final String COMMANDS_REPEATED = "attempt commands relayed more than once";
    /** Jobs with paid calls (answers billed) for more than one of their attempts, explained or not. */
    public static final String JOBS_PAID_TWICE = "jobs paid more than once";
    /**
     * Of those, the jobs whose earlier paid attempt had a usable answer and was resolved by an operator before the
     * answer was applied: an UNKNOWN that the pipeline's own delay made (the answer was on its way), and a second
     * call the operator's resolve paid for.
     */
    public static final String PAID_TWICE_AFTER_A_RESOLVE = "jobs paid twice after a resolve overtook an answer";
    public static final String ANOMALIES = "anomalies";

    private RunFigures() {
    }

    /** Adds every figure but {@link #ANOMALIES}, which the checker adds once the checks have run. */
    static void add(RunRecord run, Submissions submissions, CheckReport.Builder report) {
        List<Submissions.Submission> all = submissions.all();
        report.figure("intents", submissions.byIntent().size())
                .figure("submissions", all.size())
                .figure("submissions via http", count(all, Submissions.Submission::overHttp))
                .figure("submissions via kafka", count(all, Submissions.Submission::overKafka))
                .figure("re-submissions", all.size() - submissions.byIntent().size())
                .figure("conflicting submissions", count(all, Submissions.Submission::conflicting))
                .figure("submit outcomes ok", count(all, s -> Op.OK.equals(s.outcome())))
                .figure("submit outcomes fail", count(all, s -> Op.FAIL.equals(s.outcome())))
                // unknown outcomes, and invokes whose outcome was never recorded
                .figure("submit outcomes unknown", count(all, s -> Op.UNKNOWN.equals(s.outcome())))
                .figure("poison records sent", invokes(run, "poison"))
                .figure("dead letters", run.deadLetters().size())
                .figure("resolves", invokes(run, "resolve"))
                .figure("fallback presses", invokes(run, "fallback"));
        faults(run, report);
        report.figure("jobs", run.jobs().size());
        for (JobStatus status : JobStatus.values()) {
            report.figure("jobs " + status, count(run.jobs(), job -> status.name().equals(job.status())));
        }
        report.figure("attempts", run.attempts().size());
        for (AttemptStatus status : AttemptStatus.values()) {
            report.figure("attempts " + status, count(run.attempts(), a -> status.name().equals(a.status())));
        }
        List<RunRecord.ProviderCall> paid = AttemptChecks.attemptCalls(run).stream()
                .filter(RunRecord.ProviderCall::paid).toList();
        Map<String, List<RunRecord.AttemptRow>> paidTwice = AttemptChecks.paidAttemptsByJob(run);
        Set<String> resolved = AttemptChecks.resolvedByAnOperator(run);
        long overtaken = paidTwice.values().stream().filter(list -> list.subList(0, list.size() - 1).stream()
                .anyMatch(a -> resolved.contains(a.id()) && AttemptChecks.deliveredUsableAnswer(run, a.id())))
                .count();
        report.figure("provider calls", AttemptChecks.attemptCalls(run).size())
                .figure("paid provider calls", paid.size())
                .figure(JOBS_PAID_TWICE, paidTwice.size())
                .figure(PAID_TWICE_AFTER_A_RESOLVE, overtaken)
                .figure("lost races", run.raceAudits().size())
                .figure("intents awaiting resolution", AttemptChecks.awaitingResolution(run));
    }

    /** The fault kind is the first word of a fault's detail, e.g. {@code kill-worker}. */
    private static void faults(RunRecord run, CheckReport.Builder report) {
        Map<String, Long> byKind = new TreeMap<>();
        for (Op op : run.ops()) {
            if ("fault".equals(op.f()) && Op.INFO.equals(op.type())) {
                String detail = op.detail() == null ? "" : op.detail().strip();
                String kind = detail.isEmpty() ? "unnamed" : detail.split("\\s+", 2)[0];
                byKind.merge(kind, 1L, Long::sum);
            }
        }
        report.figure("faults injected", byKind.values().stream().mapToLong(Long::longValue).sum());
        byKind.forEach((kind, count) -> report.figure("faults " + kind, count));
    }

    private static long invokes(RunRecord run, String f) {
        return count(run.ops(), op -> f.equals(op.f()) && Op.INVOKE.equals(op.type()));
    }

    private static <T> long count(List<T> items, Predicate<T> test) {
        return items.stream().filter(test).count();
    }
}
