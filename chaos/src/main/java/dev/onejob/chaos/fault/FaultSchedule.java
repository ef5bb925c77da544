package dev.onejob.chaos.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * When each fault strikes, drawn from the seed: every kind {@code rounds} times, in a shuffled order, one per slot of
 * the load window between 8% and 85% of it, at a drawn point in the first half of its slot, so two faults are never
 * closer than half a slot and the last leaves time to recover before the load ends. {@code target} picks the
 * instance (worker or ingest 0 or 1) for the faults that have a choice.
 */
public record FaultSchedule(List<Fault> faults) {
    /** One scheduled fault. */
    public record Fault(Duration at, FaultKind kind, int target) {
    }

    /** Without a broker outage. */
    public static FaultSchedule draw(long seed, Duration load, int rounds) {
        return draw(seed, load, rounds, Duration.ZERO);
    }

    /** On one broker. */
    public static FaultSchedule draw(long seed, Duration load, int rounds, Duration brokerOutage) {
        return draw(seed, load, rounds, brokerOutage, FaultKind.perRound(false));
    }

    /**
     * With a {@link FaultKind#BROKER_OUTAGE} of {@code brokerOutage} (none when zero) at a drawn point between 25%
     * and 50% of the load: the other faults are spread over the window less the outage and a recovery of
     * {@link #OUTAGE_RECOVERY}, and none falls inside that stretch.
     */
    public static FaultSchedule draw(long seed, Duration load, int rounds, Duration brokerOutage,
                                     List<FaultKind> perRound) {
        Random random = new Random(seed ^ 0x5DEECE66DL);
        List<FaultKind> kinds = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            kinds.addAll(perRound);
        }
        Collections.shuffle(kinds, random);
        long gap = brokerOutage.isZero() ? 0 : brokerOutage.plus(OUTAGE_RECOVERY).toMillis();
        long from = load.toMillis() * 8 / 100;
        long to = load.toMillis() * 85 / 100 - gap;
        if (to - from < kinds.size()) {
            throw new IllegalArgumentException("a load of " + load + " leaves no room for " + kinds.size()
                    + " faults and a broker outage of " + brokerOutage);
        }
        long slot = (to - from) / kinds.size();
        // Drawn only with an outage, so that a seed without one replays the schedule it always had.
        long outageAt = gap == 0 ? Long.MAX_VALUE
                : load.toMillis() * 25 / 100 + (long) (random.nextDouble() * load.toMillis() / 4);
        List<Fault> faults = new ArrayList<>();
        for (int i = 0; i < kinds.size(); i++) {
            long at = from + i * slot + (long) (random.nextDouble() * slot / 2);
            faults.add(new Fault(Duration.ofMillis(gap > 0 && at >= outageAt ? at + gap : at), kinds.get(i),
                    random.nextInt(2)));
        }
        if (gap > 0) {
            faults.add(new Fault(Duration.ofMillis(outageAt), FaultKind.BROKER_OUTAGE, 0));
        }
        faults.sort(Comparator.comparing(Fault::at));
        return new FaultSchedule(List.copyOf(faults));
    }

    /** After a broker outage, how long before the next fault: clients reconnect, groups rejoin, backlogs drain. */
    public static final Duration OUTAGE_RECOVERY = Duration.ofSeconds(20);

    public String describe() {
        StringBuilder text = new StringBuilder();
        for (Fault fault : faults) {
            text.append(String.format("  +%6.1f s  %s%s%n", fault.at().toMillis() / 1000.0, fault.kind().wireName(),
                    fault.kind() == FaultKind.KILL_WORKER || fault.kind() == FaultKind.STOP_WORKER
                            || fault.kind() == FaultKind.TERM_WORKER || fault.kind() == FaultKind.KILL_INGEST
                            || fault.kind() == FaultKind.KILL_LEADER ? " #" + fault.target() : ""));
        }
        return text.toString();
    }
}
