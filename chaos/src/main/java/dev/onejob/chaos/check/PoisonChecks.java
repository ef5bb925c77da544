package dev.onejob.chaos.check;

import dev.onejob.chaos.check.RunRecord.DeadLetter;
import dev.onejob.chaos.history.Op;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The check of poison records: each one the broker acknowledged on {@code job-requests} is on
 * {@code job-requests.dlq} exactly once, under its original key and with a reason. The job-requests consumer is
 * at least once (a crash between the dead letter and the offset commit redelivers the poll), so letters naming the
 * same source record ({@code onejob-dlq-source}: topic/partition/offset) count once, and the repeats are a figure.
 * Consumes the history's poison ops and the dead letters; produces anomalies into a {@link CheckReport.Builder}.
 */
final class PoisonChecks {
    private PoisonChecks() {
    }

    /** Sends of one record key: acknowledged, and unknown (may have been sent). A failed send surely was not. */
    private static final class Sends {
        int acked;
        int maybe;
    }

    static void check(RunRecord run, CheckReport.Builder report) {
        Map<Long, Op> outcomes = Submissions.outcomesByOp(run.ops());
        Map<String, Sends> sends = new LinkedHashMap<>();
        for (Op op : run.ops()) {
            if ("poison".equals(op.f()) && Op.INVOKE.equals(op.type())) {
                Sends s = sends.computeIfAbsent(op.key(), k -> new Sends());
                switch (Submissions.outcomeType(outcomes.get(op.op()))) {
                    case Op.OK -> s.acked++;
                    case Op.UNKNOWN -> s.maybe++;
                    default -> { }
                }
            }
        }
        Map<String, Integer> letters = new HashMap<>();
        Set<String> sources = new HashSet<>();
        long repeated = 0;
        for (DeadLetter letter : run.deadLetters()) {
            if (letter.source() != null && !sources.add(letter.source())) {
                repeated++;
            } else if (letter.reason() != null && !letter.reason().isBlank()) {
                letters.merge(letter.key(), 1, Integer::sum);
            }
        }
        report.figure(RunFigures.DEAD_LETTERS_REPEATED, repeated);
        sends.forEach((key, s) -> {
            int found = letters.getOrDefault(key, 0);
            if (found < s.acked) {
                report.anomaly(AnomalyKind.POISON_NOT_DEAD_LETTERED, "key " + key, s.acked
                        + " acknowledged send(s), " + found + " dead letter(s) with a reason");
            } else if (found > s.acked + s.maybe) {
                report.anomaly(AnomalyKind.POISON_DEAD_LETTERED_TWICE, "key " + key, found + " dead letters for "
                        + s.acked + " acknowledged and " + s.maybe + " unknown send(s)");
            }
        });
    }
}
