package dev.onejob.chaos.fault;

/** The faults a chaos run inflicts; {@link #label()} is the word the history and the report use. */
public enum FaultKind {
    /** kill -9 of an attempt worker, started again 2 s later. */
    KILL_WORKER("kill-worker"),
    /** kill -9 of the result reconciler, started again 2 s later. */
    KILL_RECONCILER("kill-reconciler"),
    /** kill -9 of one of the two ingest instances behind nginx, started again 3 s later. */
    KILL_INGEST("kill-ingest"),
    /** SIGSTOP of a worker for longer than max.poll.interval.ms, then SIGCONT: a zombie wakes up. */
    STOP_WORKER("stop-worker"),
    /** kill -9 of the Kafka broker, started again on the same data. */
    RESTART_BROKER("restart-broker"),
    /** An immediate-mode restart of the run's own PostgreSQL cluster (a crash and recovery), never the machine's. */
    RESTART_POSTGRES("restart-postgres"),
    /** The primary provider refuses connections for 20 s. */
    PROVIDER_OUTAGE("provider-outage"),
    /**
     * SIGTERM of an attempt worker while it has calls in flight: it stops taking commands, lets its calls finish and
     * publishes their outcomes (its drain), exits, and is started again 2 s later.
     */
    TERM_WORKER("term-worker"),
    /**
     * SIGSTOP of every process of the run's own PostgreSQL cluster (the server and each backend), then SIGCONT: a
     * database host that stops answering without closing a socket, so only the clients' timeouts notice.
     */
    FREEZE_POSTGRES("freeze-postgres"),
    /**
     * The Kafka broker killed and kept down for longer than the producers' delivery timeout (120 s), then started
     * on its data: every send of that time fails in its producer, and only a sender that tries again gets through.
     * Once per run, in the full mode only ({@link FaultSchedule#draw}); it has its own stretch of the schedule.
     */
    BROKER_OUTAGE("broker-outage");

    /** The kinds each round of a schedule holds: all but the once-a-run {@link #BROKER_OUTAGE}. */
    public static java.util.List<FaultKind> perRound() {
        return java.util.Arrays.stream(values()).filter(kind -> kind != BROKER_OUTAGE).toList();
    }

    private final String label;

    FaultKind(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
