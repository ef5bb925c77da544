package dev.onejob.chaos;

import dev.onejob.chaos.fault.FaultKind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How one chaos run is shaped. Immutable; {@link #quick} is the 2-minute mode the test command runs, {@link #full} the
 * 15-minute mode behind RELIABILITY.md. Both hold the same mix of load and faults; only the duration, and with it the
 * number of jobs and of faults, differ.
 *
 * @param seed           draws the load, the provider faults and the fault schedule; the same seed replays the same plan
 * @param mode           "quick" or "full", for the report
 * @param load           how long intents are submitted (faults are injected within this window)
 * @param intentsPerSec  new intents per second (re-submissions come on top)
 * @param faultRounds    how many times each kind of fault is injected
 * @param root           the repository (the build the run snapshots and runs)
 * @param work           the run's directory: logs, history, ledgers, report
 */
public record ChaosSettings(long seed, String mode, Duration load, double intentsPerSec, int faultRounds, Path root,
                            Path work, int brokers) {
    /** On one broker. */
    public ChaosSettings(long seed, String mode, Duration load, double intentsPerSec, int faultRounds, Path root,
                         Path work) {
        this(seed, mode, load, intentsPerSec, faultRounds, root, work, 1);
    }

    /**
     * The same run on three authenticated brokers (replication 3, min.insync 2, each service its own principal, the
     * upstream on its own topic), with the cluster's faults instead of the single broker's. Its quick mode loads for
     * three minutes: a rolling restart takes about a minute on two cores, and the other faults keep their slots.
     */
    public ChaosSettings onCluster() {
        return new ChaosSettings(seed, mode, "quick".equals(mode) ? Duration.ofMinutes(3) : load, intentsPerSec,
                faultRounds, root, work, 3);
    }

    /** The fault kinds of each round: the cluster's on three brokers. */
    public List<FaultKind> faultKinds() {
        return FaultKind.perRound(brokers > 1);
    }
    /** Share of intents submitted more than once (half at the same moment, half later). */
    public static final double RESUBMIT_SHARE = 0.30;
    /** Share of intents re-submitted once more with a different payload after the first answer (a deliberate conflict). */
    public static final double CONFLICT_SHARE = 0.02;
    /** Share of intents sent on job-requests rather than over HTTP. */
    public static final double KAFKA_SHARE = 0.40;
    /** One poison record on job-requests per this many intents. */
    public static final int POISON_EVERY = 50;
    /** The providers' soft timeout: a call still unanswered then makes its attempt UNKNOWN. */
    public static final Duration SOFT_TIMEOUT = Duration.ofMillis(1_500);
    /** The providers' hard timeout: the worker stops waiting (the attempt stays UNKNOWN). */
    public static final Duration HARD_TIMEOUT = Duration.ofSeconds(8);
    /** When the simulators answer a late call: past the soft timeout, before the hard one. */
    public static final Duration LATE_ANSWER = Duration.ofSeconds(4);
    /** The consumers' max.poll.interval.ms; a stopped worker is frozen longer than this. */
    public static final Duration MAX_POLL_INTERVAL = Duration.ofSeconds(15);

    public static ChaosSettings quick(long seed, Path root, Path work) {
        return new ChaosSettings(seed, "quick", Duration.ofMinutes(2), 12, 1, root, work);
    }

    /**
     * How long the PostgreSQL freeze lasts: in the full mode past the services' 30 s socket timeout (so their
     * connections to the silent server are dropped and opened again), in the quick mode within one fault slot.
     */
    /** How long a long stream flows: a minute in the 2-minute mode, two and a half in the 15-minute one. */
    public Duration longStream() {
        return "full".equals(mode) ? LONG_STREAM_MAX : Duration.ofMinutes(1);
    }

    /** The longest a long stream flows in any mode (the drain's 4 minutes leave room for it). */
    public static final Duration LONG_STREAM_MAX = Duration.ofSeconds(150);

    public Duration postgresFreeze() {
        return "full".equals(mode) ? Duration.ofSeconds(35) : Duration.ofSeconds(8);
    }

    /**
     * How long the one broker outage keeps Kafka down: in the full mode past the producers' 120 s delivery timeout
     * (so sends fail in their producers, not only wait); none in the quick mode, whose load is shorter than that, and
     * none on the cluster, whose broker faults are a leader killed and a rolling restart.
     */
    public Duration brokerOutage() {
        return "full".equals(mode) && brokers == 1 ? Duration.ofSeconds(130) : Duration.ZERO;
    }

    public static ChaosSettings full(long seed, Path root, Path work) {
        return new ChaosSettings(seed, "full", Duration.ofMinutes(15), 12, 5, root, work);
    }

    public long intents() {
        return (long) Math.floor(load.toMillis() / 1000.0 * intentsPerSec);
    }
}
