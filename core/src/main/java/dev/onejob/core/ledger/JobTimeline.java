package dev.onejob.core.ledger;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/**
 * What happened to a job, as events derived from its ledger rows (no event table: every fact is already a column
 * written in the transaction that made it true). Per attempt, in the only order they can happen: created, started,
 * unknown, its end (succeeded, failed, cancelled) and a discarded answer (a lost race); the operators' actions; and the
 * job's end.
 *
 * <p>Each event carries a {@link Position}: how far along each attempt, the actions and the job's end a reader has
 * been told. A position is a set, not a time or a sequence number, so resuming from one (SSE {@code Last-Event-ID})
 * misses nothing even when two transactions commit in the opposite order of their clocks. Pure code, no I/O.
 */
public final class JobTimeline {
    private JobTimeline() {
    }

    /** Event types, as the API names them. */
    public enum Type {
        ATTEMPT_CREATED("attempt.created"), ATTEMPT_STARTED("attempt.started"), ATTEMPT_UNKNOWN("attempt.unknown"),
        ATTEMPT_SUCCEEDED("attempt.succeeded"), ATTEMPT_FAILED("attempt.failed"),
        ATTEMPT_CANCELLED("attempt.cancelled"), ATTEMPT_DISCARDED("attempt.discarded"),
        OPERATOR_ACTION("operator.action"), JOB_FINISHED("job.finished");

        private final String wireName;

        Type(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }

    /**
     * One event; {@code attempt} is the attempt it is about (null for the job's end), {@code action} the operator's
     * action for {@link Type#OPERATOR_ACTION}. {@code position} is where a reader is once told this and everything
     * before it.
     */
    public record Event(Type type, Instant at, Attempt attempt, OperatorAction action, Job job, Position position) {
        /** The call's duration, for an attempt's end: from its start to its end; null when it never started. */
        public Duration latency() {
            if (attempt == null || attempt.startedAt() == null || attempt.finishedAt() == null
                    || !(type == Type.ATTEMPT_SUCCEEDED || type == Type.ATTEMPT_FAILED
                    || type == Type.ATTEMPT_CANCELLED)) {
                return null;
            }
            return Duration.between(attempt.startedAt(), attempt.finishedAt());
        }
    }

    /**
     * How far a reader has been told: per attempt number, the last phase (0 none, 1 created, 2 started, 3 unknown,
     * 4 ended, 5 discarded); how many operator actions; whether the job's end. Written as text for {@code id:}.
     */
    public record Position(int[] phases, int actions, boolean finished) {
        public static final Position START = new Position(new int[0], 0, false);

        public Position {
            phases = phases.clone();
        }

        int phase(int attemptNumber) {
            return attemptNumber <= phases.length ? phases[attemptNumber - 1] : 0;
        }

        Position with(int attemptNumber, int phase) {
            int[] next = Arrays.copyOf(phases, Math.max(phases.length, attemptNumber));
            next[attemptNumber - 1] = Math.max(next[attemptNumber - 1], phase);
            return new Position(next, actions, finished);
        }

        /** For example {@code 5.4-1-1}: attempt 1 discarded, attempt 2 ended, one action, the job finished. */
        public String text() {
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < phases.length; i++) {
                out.append(i == 0 ? "" : ".").append(phases[i]);
            }
            return out.append('-').append(actions).append('-').append(finished ? 1 : 0).toString();
        }

        /** The position a reader sent back; anything unreadable reads as the start, so a resume repeats, never skips. */
        public static Position parse(String text) {
            if (text == null) {
                return START;
            }
            String[] parts = text.strip().split("-", -1);
            if (parts.length != 3 || parts[0].length() > 1000) {
                return START;
            }
            try {
                int[] phases = parts[0].isEmpty() ? new int[0]
                        : Arrays.stream(parts[0].split("\\.", -1)).mapToInt(Integer::parseInt).toArray();
                int actions = Integer.parseInt(parts[1]);
                if (Arrays.stream(phases).anyMatch(p -> p < 0 || p > 5) || actions < 0
                        || !(parts[2].equals("0") || parts[2].equals("1"))) {
                    return START;
                }
                return new Position(phases, actions, parts[2].equals("1"));
            } catch (NumberFormatException e) {
                return START;
            }
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Position p && Arrays.equals(phases, p.phases) && actions == p.actions
                    && finished == p.finished;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(phases) * 31 + actions * 2 + (finished ? 1 : 0);
        }

        @Override
        public String toString() {
            return text();
        }
    }

    /** Every event of the job, oldest first. */
    public static List<Event> events(LedgerQueries.JobHistory history) {
        return after(history, Position.START);
    }

    /** The events a reader at {@code told} has not been told, oldest first, each with the position after it. */
    public static List<Event> after(LedgerQueries.JobHistory history, Position told) {
        List<Pending> pending = new ArrayList<>();
        for (Attempt attempt : history.attempts()) {
            for (Pending p : phases(attempt)) {
                if (p.phase > told.phase(attempt.number())) {
                    pending.add(p);
                }
            }
        }
        List<OperatorAction> actions = history.actions();
        for (int i = told.actions(); i < actions.size(); i++) {
            pending.add(new Pending(Type.OPERATOR_ACTION, actions.get(i).createdAt(), null, 0, actions.get(i), i + 1));
        }
        Job job = history.job();
        if (!told.finished() && job.status().isFinished() && job.finishedAt() != null) {
            pending.add(new Pending(Type.JOB_FINISHED, job.finishedAt(), null, 0, null, 0));
        }
        // Time order for reading; an attempt's phases and the actions keep their own order whatever the clocks say.
        pending.sort(Comparator.comparing((Pending p) -> p.at).thenComparing(p -> p.type.ordinal()));
        List<Event> events = new ArrayList<>();
        Position position = told;
        for (Pending p : inPhaseOrder(pending)) {
            if (p.attempt != null) {
                position = position.with(p.attempt.number(), p.phase);
            } else if (p.type == Type.OPERATOR_ACTION) {
                position = new Position(position.phases(), Math.max(position.actions(), p.actionCount), position.finished());
            } else {
                position = new Position(position.phases(), position.actions(), true);
            }
            events.add(new Event(p.type, p.at, p.attempt, p.action, job, position));
        }
        return events;
    }

    /**
     * Whether anything may still happen to the job at {@code now}: it is not final, or an attempt of it may still
     * answer. A live attempt may; so may one ended out of band while its call ran (resolved by an operator, or
     * cancelled), until its worker's {@code abandon_after}: its late answer is then discarded, which is an event.
     */
    public static boolean mayChange(LedgerQueries.JobHistory history, Instant now) {
        return !history.job().status().isFinished()
                || history.attempts().stream().anyMatch(a -> a.status().isLive()
                        || endedOutOfBandWhileCalling(a, history.actions()) && now.isBefore(a.abandonAfter()));
    }

    private static boolean endedOutOfBandWhileCalling(Attempt a, List<OperatorAction> actions) {
        if (a.startedAt() == null || a.abandonAfter() == null) {
            return false;
        }
        // A worker never reports CANCELLED; FAILED is out of band only when an operator resolved it so.
        return a.status() == AttemptStatus.CANCELLED || a.status() == AttemptStatus.FAILED
                && actions.stream().anyMatch(action -> a.id().equals(action.attemptId()));
    }

    private record Pending(Type type, Instant at, Attempt attempt, int phase, OperatorAction action,
                           int actionCount) {
    }

    /**
     * The time-sorted events with each attempt's phases, and the actions, moved into their own order where clocks
     * disagree (an attempt started in a transaction that began before its creator's commit, say).
     */
    private static List<Pending> inPhaseOrder(List<Pending> sorted) {
        List<Pending> out = new ArrayList<>(sorted);
        for (int i = 1; i < out.size(); i++) {
            for (int j = i; j > 0 && before(out.get(j), out.get(j - 1)); j--) {
                Pending tmp = out.get(j);
                out.set(j, out.get(j - 1));
                out.set(j - 1, tmp);
            }
        }
        return out;
    }

    private static boolean before(Pending a, Pending b) {
        if (a.attempt != null && b.attempt != null && a.attempt.number() == b.attempt.number()) {
            return a.phase < b.phase;
        }
        if (a.type == Type.OPERATOR_ACTION && b.type == Type.OPERATOR_ACTION) {
            return a.actionCount < b.actionCount;
        }
        return false;
    }

    private static List<Pending> phases(Attempt a) {
        List<Pending> out = new ArrayList<>();
        out.add(new Pending(Type.ATTEMPT_CREATED, a.createdAt(), a, 1, null, 0));
        if (a.startedAt() != null) {
            out.add(new Pending(Type.ATTEMPT_STARTED, a.startedAt(), a, 2, null, 0));
        }
        if (a.unknownAt() != null) {
            out.add(new Pending(Type.ATTEMPT_UNKNOWN, a.unknownAt(), a, 3, null, 0));
        }
        Type end = switch (a.status()) {
            case SUCCEEDED -> Type.ATTEMPT_SUCCEEDED;
            case FAILED -> Type.ATTEMPT_FAILED;
            case CANCELLED -> Type.ATTEMPT_CANCELLED;
            // A discarded answer came to an attempt that had ended first (cancelled or failed), or to a live one
            // that lost the compare-and-swap.
            case DISCARDED -> a.lostReason() == LossReason.ATTEMPT_FAILED ? Type.ATTEMPT_FAILED
                    : a.lostReason() == LossReason.LOST_CAS ? null : Type.ATTEMPT_CANCELLED;
            default -> null;
        };
        if (end != null && a.finishedAt() != null) {
            out.add(new Pending(end, a.finishedAt(), a, 4, null, 0));
        }
        if (a.status() == AttemptStatus.DISCARDED) {
            out.add(new Pending(Type.ATTEMPT_DISCARDED, a.updatedAt(), a, 5, null, 0));
        }
        return out;
    }
}
