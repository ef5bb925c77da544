package dev.onejob.chaos.check;

import dev.onejob.chaos.ChaosSettings;
import dev.onejob.chaos.check.RunRecord.AttemptRow;
import dev.onejob.chaos.history.Op;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When the faults that excuse a lost call or answer came, as the history's fault and note entries record them: worker
 * kills, worker freezes (SIGSTOP), worker terminations (SIGTERM) and provider outages. Consumes a {@link RunRecord}'s
 * ops; answers the {@link AttemptChecks}' "was a worker or provider down then?" questions, in epoch milliseconds.
 */
final class FaultTimeline {
    /** How long after an attempt's start a worker kill may cut it off before the request leaves. */
    static final long KILL_WINDOW_MS = 3_000;
    /** When a late answer ({@code hang} that answers) comes after its request: the run's LATE_ANSWER. */
    static final long LATE_ANSWER_MS = ChaosSettings.LATE_ANSWER.toMillis();
    /** The longest a run's long stream takes to its end: the window in which a worker fault may lose it. */
    static final long LONG_STREAM_MS = ChaosSettings.LONG_STREAM_MAX.toMillis();
    /** Around an outage: a call may be written onto a connection the provider is dropping, and never be seen. */
    static final long OUTAGE_MARGIN_MS = 2_000;

    /** A provider outage as the history records it: "provider-outage primary refuses connections for 20 s". */
    private static final Pattern OUTAGE = Pattern.compile("provider-outage (\\S+) refuses connections for (\\d+) s");
    /** A worker's SIGSTOP as the history records it: "stop-worker worker-1 SIGSTOP for 40 s, then SIGCONT". */
    private static final Pattern WORKER_STOP = Pattern.compile("(worker-\\S+) SIGSTOP for (\\d+) s");

    /** [from, to] of every worker kill (an instant) and worker SIGSTOP (its whole freeze). */
    private final List<long[]> workerFaults = new ArrayList<>();
    private final List<Long> workerKills = new ArrayList<>();
    /** When a worker was stopped with SIGTERM: it drains its calls, but not a stream longer than its drain. */
    private final List<Long> workerTerminations = new ArrayList<>();
    private final List<Outage> outages = new ArrayList<>();

    /** A provider's outage, widened by {@link #OUTAGE_MARGIN_MS} on either side. */
    private record Outage(String provider, long from, long to) {
    }

    FaultTimeline(RunRecord run) {
        for (Op op : run.ops()) {
            if (op.detail() == null) {
                continue;
            }
            if ("fault".equals(op.f())) {
                fault(op);
            }
            // A restart's "term-worker ... SIGTERM" is a fault; an extra worker's leaving is a note.
            if (("fault".equals(op.f()) || "note".equals(op.f())) && op.detail().contains("worker-")
                    && op.detail().contains("SIGTERM")) {
                workerTerminations.add(op.time());
            }
        }
    }

    private void fault(Op op) {
        boolean workerKill = op.detail().contains("worker-") && op.detail().contains("kill -9");
        if (workerKill) {
            workerKills.add(op.time());
        }
        Matcher stop = WORKER_STOP.matcher(op.detail());
        if (stop.find()) {
            workerFaults.add(new long[] {op.time(), op.time() + Long.parseLong(stop.group(2)) * 1000});
        } else if (workerKill) {
            workerFaults.add(new long[] {op.time(), op.time()});
        }
        Matcher outage = OUTAGE.matcher(op.detail());
        if (outage.find()) {
            outages.add(new Outage(outage.group(1), op.time() - OUTAGE_MARGIN_MS,
                    op.time() + Long.parseLong(outage.group(2)) * 1000 + OUTAGE_MARGIN_MS));
        }
    }

    /** A worker killed from a second before {@code started} until {@link #KILL_WINDOW_MS} after it. */
    boolean workerKilledAround(long started) {
        return workerKills.stream().anyMatch(kill -> kill >= started - 1_000 && kill <= started + KILL_WINDOW_MS);
    }

    /** A worker stopped with SIGTERM from a second before {@code from} until {@code to}. */
    boolean workerTerminatedBetween(long from, long to) {
        return workerTerminations.stream().anyMatch(t -> t >= from - 1_000 && t <= to);
    }

    /**
     * Whether {@code provider} was dropping its connections while the answer was on its way, from when the call
     * came ({@code from}) until it was answered ({@code to}): an outage closes the streams in flight too.
     */
    boolean inOutage(String provider, long from, long to) {
        return outages.stream().anyMatch(o -> o.provider().equals(provider) && to >= o.from() && from <= o.to());
    }

    /**
     * A worker fault from the attempt's start until its answer arrived, or its end in the ledger if later: a worker
     * holds its call until the answer or the hard deadline, whatever the ledger says meanwhile (an operator may have
     * resolved the attempt before the answer came), so a kill in between loses the answer with the worker.
     */
    boolean workerFaultBefore(AttemptRow attempt, Long answeredAtMillis) {
        if (workerFaultDuring(attempt) || attempt.startedAt() == null || answeredAtMillis == null) {
            return workerFaultDuring(attempt);
        }
        long from = attempt.startedAt().toEpochMilli() - 1_000;
        return workerFaults.stream().anyMatch(w -> w[0] <= answeredAtMillis && w[1] >= from);
    }

    /** A worker fault from a second before the attempt's start until its end in the ledger. */
    boolean workerFaultDuring(AttemptRow attempt) {
        if (attempt.startedAt() == null) {
            return false;
        }
        long from = attempt.startedAt().toEpochMilli() - 1_000;
        long to = end(attempt) == Instant.MAX ? Long.MAX_VALUE : end(attempt).toEpochMilli();
        return workerFaults.stream().anyMatch(w -> w[0] <= to && w[1] >= from);
    }

    /** When the attempt stopped being live: its {@code finished_at}, or {@link Instant#MAX} while it is. */
    static Instant end(AttemptRow attempt) {
        return attempt.finishedAt() == null ? Instant.MAX : attempt.finishedAt();
    }
}
