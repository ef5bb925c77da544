package dev.onejob.chaos.fault;

import dev.onejob.core.events.WireName;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** The faults a chaos run inflicts; the {@link WireName} is the word the history and the report use. */
public enum FaultKind implements WireName {
    /** kill -9 of an attempt worker, started again 2 s later. */
    KILL_WORKER,
    /** kill -9 of the result reconciler, started again 2 s later. */
    KILL_RECONCILER,
    /** kill -9 of one of the two ingest instances behind nginx, started again 3 s later. */
    KILL_INGEST,
    /** SIGSTOP of a worker for longer than max.poll.interval.ms, then SIGCONT: a zombie wakes up. */
    STOP_WORKER,
    /** kill -9 of the Kafka broker, started again on the same data. */
    RESTART_BROKER,
    /** An immediate-mode restart of the run's own PostgreSQL cluster (a crash and recovery), never the machine's. */
    RESTART_POSTGRES,
    /** The primary provider refuses connections for 20 s. */
    PROVIDER_OUTAGE,
    /**
     * The primary provider answers every call with 429 and {@code Retry-After: 1} for 15 s: its refusals are retried
     * on it as new attempts, it cools down, and new jobs start on the certified backup meanwhile.
     */
    RATE_LIMIT_STORM,
    /**
     * SIGTERM of an attempt worker while it has calls in flight: it stops taking commands, lets its calls finish and
     * publishes their outcomes (its drain), exits, and is started again 2 s later.
     */
    TERM_WORKER,
    /**
     * SIGSTOP of every process of the run's own PostgreSQL cluster (the server and each backend), then SIGCONT: a
     * database host that stops answering without closing a socket, so only the clients' timeouts notice.
     */
    FREEZE_POSTGRES,
    /**
     * The Kafka broker killed and kept down for longer than the producers' delivery timeout (120 s), then started
     * on its data: every send of that time fails in its producer, and only a sender that tries again gets through.
     * Once per run, in the full mode only ({@link FaultSchedule#draw}); it has its own stretch of the schedule.
     */
    BROKER_OUTAGE,
    /**
     * On the three-broker cluster: kill -9 of the broker that leads a partition of {@code attempt-completions} (the
     * partition drawn), started again on its data 5 s later; the partition's leadership moves to an in-sync replica.
     */
    KILL_LEADER,
    /**
     * On the three-broker cluster: every broker in turn stopped (SIGTERM, a controlled shutdown) and started again,
     * the next only once every partition has all its replicas in sync again.
     */
    ROLLING_RESTART,
    /** A third attempt worker joins the group (a rebalance), and leaves it 15 s later by SIGTERM (another). */
    ADD_REMOVE_WORKER;

    /** The kinds each round of a schedule holds on one broker: the single-broker ones but the once-a-run outage. */
    public static List<FaultKind> perRound() {
        return perRound(false);
    }

    /**
     * The kinds each round holds: on one broker, all but the cluster's and the once-a-run {@link #BROKER_OUTAGE}; on
     * the three-broker cluster, the broker faults are the cluster's (a leader killed, a rolling restart) instead of
     * the single broker's restart, and workers join and leave.
     */
    public static List<FaultKind> perRound(boolean cluster) {
        Set<FaultKind> clusterOnly = EnumSet.of(KILL_LEADER, ROLLING_RESTART, ADD_REMOVE_WORKER);
        return Arrays.stream(values()).filter(kind -> kind != BROKER_OUTAGE)
                .filter(kind -> cluster ? kind != RESTART_BROKER : !clusterOnly.contains(kind)).toList();
    }
}
