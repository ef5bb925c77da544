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
 * prints them. Names of the form {@code "jobs " + status}, {@code "attempts " + status} and
 * {@code "faults " + kind} are one figure per status or fault kind; the constants name the others.
 */
public final class RunFigures {
    public static final String INTENTS = "intents";
    public static final String SUBMISSIONS = "submissions";
    public static final String SUBMISSIONS_HTTP = "submissions via http";
    public static final String SUBMISSIONS_KAFKA = "submissions via kafka";
    public static final String RESUBMISSIONS = "re-submissions";
    public static final String CONFLICTING = "conflicting submissions";
    public static final String SUBMIT_OK = "submit outcomes ok";
    public static final String SUBMIT_FAIL = "submit outcomes fail";
    /** Unknown outcomes, and invokes whose outcome was never recorded. */
    public static final String SUBMIT_UNKNOWN = "submit outcomes unknown";
    public static final String POISON_SENT = "poison records sent";
    public static final String DEAD_LETTERS = "dead letters";
    public static final String RESOLVES = "resolves";
    public static final String FALLBACKS = "fallback presses";
    public static final String FAULTS = "faults injected";
    /** Dead letters naming a source record already dead-lettered (a redelivery after a crash, not a second poison). */
    public static final String DEAD_LETTERS_REPEATED = "dead letters repeated for one source record";
    public static final String JOBS = "jobs";
    public static final String ATTEMPTS = "attempts";
    public static final String PROVIDER_CALLS = "provider calls";
    public static final String PAID_CALLS = "paid provider calls";
    /** Jobs with paid calls (answers billed) for more than one of their attempts, explained or not. */
    public static final String JOBS_PAID_TWICE = "jobs paid more than once";
    /**
     * Of those, the jobs whose earlier paid attempt had a usable answer and was resolved by an operator before the
     * answer was applied: an UNKNOWN that the pipeline's own delay made (the answer was on its way), and a second
     * call the operator's resolve paid for.
     */
    public static final String PAID_TWICE_AFTER_A_RESOLVE = "jobs paid twice after a resolve overtook an answer";
    public static final String LOST_RACES = "lost races";
    public static final String AWAITING_RESOLUTION = "intents awaiting resolution";
    public static final String ANOMALIES = "anomalies";

    private RunFigures() {
    }

    /** Adds every figure but {@link #ANOMALIES}, which the checker adds once the checks have run. */
    static void add(RunRecord run, Submissions submissions, CheckReport.Builder report) {
        List<Submissions.Submission> all = submissions.all();
        report.figure(INTENTS, submissions.byIntent().size())
                .figure(SUBMISSIONS, all.size())
                .figure(SUBMISSIONS_HTTP, count(all, Submissions.Submission::overHttp))
                .figure(SUBMISSIONS_KAFKA, count(all, Submissions.Submission::overKafka))
                .figure(RESUBMISSIONS, all.size() - submissions.byIntent().size())
                .figure(CONFLICTING, count(all, Submissions.Submission::conflicting))
                .figure(SUBMIT_OK, count(all, s -> Op.OK.equals(s.outcome())))
                .figure(SUBMIT_FAIL, count(all, s -> Op.FAIL.equals(s.outcome())))
                .figure(SUBMIT_UNKNOWN, count(all, s -> Op.UNKNOWN.equals(s.outcome())))
                .figure(POISON_SENT, invokes(run, "poison"))
                .figure(DEAD_LETTERS, run.deadLetters().size())
                .figure(RESOLVES, invokes(run, "resolve"))
                .figure(FALLBACKS, invokes(run, "fallback"));
        faults(run, report);
        report.figure(JOBS, run.jobs().size());
        for (JobStatus status : JobStatus.values()) {
            report.figure(JOBS + " " + status, count(run.jobs(), job -> status.name().equals(job.status())));
        }
        report.figure(ATTEMPTS, run.attempts().size());
        for (AttemptStatus status : AttemptStatus.values()) {
            report.figure(ATTEMPTS + " " + status, count(run.attempts(), a -> status.name().equals(a.status())));
        }
        List<RunRecord.ProviderCall> paid = AttemptChecks.attemptCalls(run).stream()
                .filter(RunRecord.ProviderCall::paid).toList();
        Map<String, List<RunRecord.AttemptRow>> paidTwice = AttemptChecks.paidAttemptsByJob(run);
        Set<String> resolved = AttemptChecks.resolvedByAnOperator(run);
        long overtaken = paidTwice.values().stream().filter(list -> list.subList(0, list.size() - 1).stream()
                .anyMatch(a -> resolved.contains(a.id()) && AttemptChecks.deliveredUsableAnswer(run, a.id())))
                .count();
        report.figure(PROVIDER_CALLS, AttemptChecks.attemptCalls(run).size())
                .figure(PAID_CALLS, paid.size())
                .figure(JOBS_PAID_TWICE, paidTwice.size())
                .figure(PAID_TWICE_AFTER_A_RESOLVE, overtaken)
                .figure(LOST_RACES, run.raceAudits().size())
                .figure(AWAITING_RESOLUTION, AttemptChecks.awaitingResolution(run));
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
        report.figure(FAULTS, byKind.values().stream().mapToLong(Long::longValue).sum());
        byKind.forEach((kind, count) -> report.figure("faults " + kind, count));
    }

    private static long invokes(RunRecord run, String f) {
        return count(run.ops(), op -> f.equals(op.f()) && Op.INVOKE.equals(op.type()));
    }

    private static <T> long count(List<T> items, Predicate<T> test) {
        return items.stream().filter(test).count();
    }
}
