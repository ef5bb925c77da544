package dev.onejob.chaos.check;

import dev.onejob.chaos.history.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The history's client operations with their outcomes: each invoke paired with the ok/fail/unknown line of the same
 * op number, and the submits grouped by intent (owner, key). An invoke with no outcome line (the harness stopped
 * first) is treated as unknown: it may or may not have happened.
 */
final class Submissions {
    /** What a client meant to happen once: one (owner, idempotency key). */
    record Intent(String owner, String key) {
        String label() {
            return owner + "/" + key;
        }
    }

    /**
     * One submit: its invoke and its outcome.
     *
     * @param conflicting its fingerprint differs from the first one invoked for its intent
     * @param outcome     ok, fail or unknown (also for an invoke without an outcome line)
     * @param jobId       the job the answer named, or null
     */
    record Submission(long op, String via, Intent intent, String fingerprint, String requestId, boolean conflicting,
                      String outcome, String jobId, Integer status) {
        boolean ok() {
            return Op.OK.equals(outcome);
        }

        boolean overHttp() {
            return "http".equals(via);
        }

        boolean overKafka() {
            return "kafka".equals(via);
        }

        String describe() {
            return "op " + op + " via " + via + " " + outcome + (status == null ? "" : " " + status);
        }
    }

    private final List<Submission> all;
    private final Map<Intent, List<Submission>> byIntent;
    private final Map<String, Submission> byRequestId;

    private Submissions(List<Submission> all) {
        this.all = List.copyOf(all);
        this.byIntent = new LinkedHashMap<>();
        this.byRequestId = new HashMap<>();
        for (Submission s : all) {
            byIntent.computeIfAbsent(s.intent(), i -> new ArrayList<>()).add(s);
            if (s.requestId() != null) {
                byRequestId.put(s.requestId(), s);
            }
        }
    }

    static Submissions of(List<Op> ops) {
        Map<Long, Op> outcomes = outcomesByOp(ops);
        Map<Intent, String> firstFingerprint = new HashMap<>();
        List<Submission> submissions = new ArrayList<>();
        for (Op op : ops) {
            if (!"submit".equals(op.f()) || !Op.INVOKE.equals(op.type())) {
                continue;
            }
            Intent intent = new Intent(op.owner(), op.key());
            String first = firstFingerprint.computeIfAbsent(intent, i -> op.fingerprint());
            Op outcome = outcomes.get(op.op());
            submissions.add(new Submission(op.op(), op.via(), intent, op.fingerprint(), op.requestId(),
                    !Objects.equals(first, op.fingerprint()), outcomeType(outcome),
                    outcome == null ? null : outcome.jobId(), outcome == null ? null : outcome.status()));
        }
        return new Submissions(submissions);
    }

    /** The ok/fail/unknown line of each op number that has one. */
    static Map<Long, Op> outcomesByOp(List<Op> ops) {
        Map<Long, Op> outcomes = new HashMap<>();
        for (Op op : ops) {
            if (Op.OK.equals(op.type()) || Op.FAIL.equals(op.type()) || Op.UNKNOWN.equals(op.type())) {
                outcomes.put(op.op(), op);
            }
        }
        return outcomes;
    }

    /** ok, fail or unknown; an operation whose outcome was never recorded may or may not have happened. */
    static String outcomeType(Op outcome) {
        return outcome == null ? Op.UNKNOWN : outcome.type();
    }

    List<Submission> all() {
        return all;
    }

    /** Intents in the order of their first invoke, each with its submissions in history order. */
    Map<Intent, List<Submission>> byIntent() {
        return byIntent;
    }

    /** The Kafka submit that sent {@code requestId} as its request_id header, or null. */
    Submission byRequestId(String requestId) {
        return requestId == null ? null : byRequestId.get(requestId);
    }
}
