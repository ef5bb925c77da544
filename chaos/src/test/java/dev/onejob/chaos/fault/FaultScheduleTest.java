package dev.onejob.chaos.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FaultScheduleTest {

    @Test
    void theSameSeedDrawsTheSameScheduleAndAnotherSeedAnother() {
        FaultSchedule first = FaultSchedule.draw(42, Duration.ofMinutes(2), 1);
        assertEquals(first, FaultSchedule.draw(42, Duration.ofMinutes(2), 1));
        assertNotEquals(first, FaultSchedule.draw(43, Duration.ofMinutes(2), 1));
    }

    @Test
    void everyKindStrikesOncePerRoundInsideTheWindowAndHalfASlotApart() {
        Duration load = Duration.ofMinutes(15);
        FaultSchedule schedule = FaultSchedule.draw(7, load, 3);
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        schedule.faults().forEach(f -> counts.merge(f.kind(), 1, Integer::sum));
        for (FaultKind kind : FaultKind.perRound()) {
            assertEquals(3, counts.get(kind), kind.wireName());
        }
        assertEquals(null, counts.get(FaultKind.BROKER_OUTAGE), "no outage unless asked for");
        long slot = (load.toMillis() * 77 / 100) / schedule.faults().size();
        for (int i = 0; i < schedule.faults().size(); i++) {
            long at = schedule.faults().get(i).at().toMillis();
            assertTrue(at >= load.toMillis() * 8 / 100 && at < load.toMillis() * 85 / 100, "inside the window: " + at);
            if (i > 0) {
                assertTrue(at - schedule.faults().get(i - 1).at().toMillis() >= slot / 2, "apart: " + at);
            }
        }
    }

    @Test
    void onTheClusterTheBrokerFaultsAreTheClustersAndOnOneBrokerTheyAreNot() {
        FaultSchedule cluster = FaultSchedule.draw(7, Duration.ofMinutes(3), 1, Duration.ZERO,
                FaultKind.perRound(true));
        Set<FaultKind> drawn = EnumSet.noneOf(FaultKind.class);
        cluster.faults().forEach(fault -> drawn.add(fault.kind()));
        assertEquals(EnumSet.copyOf(FaultKind.perRound(true)), drawn);
        assertTrue(drawn.containsAll(List.of(FaultKind.KILL_LEADER, FaultKind.ROLLING_RESTART,
                FaultKind.ADD_REMOVE_WORKER)));
        assertTrue(!drawn.contains(FaultKind.RESTART_BROKER) && !drawn.contains(FaultKind.BROKER_OUTAGE));
        Set<FaultKind> single = EnumSet.copyOf(FaultKind.perRound(false));
        assertTrue(single.contains(FaultKind.RESTART_BROKER) && !single.contains(FaultKind.KILL_LEADER)
                && !single.contains(FaultKind.ROLLING_RESTART) && !single.contains(FaultKind.ADD_REMOVE_WORKER));
    }

    @Test
    void aBrokerOutageStrikesOnceWithItsStretchFreeOfOtherFaults() {
        Duration load = Duration.ofMinutes(15);
        Duration outage = Duration.ofSeconds(130);
        FaultSchedule schedule = FaultSchedule.draw(11, load, 5, outage);

        List<FaultSchedule.Fault> outages = schedule.faults().stream()
                .filter(f -> f.kind() == FaultKind.BROKER_OUTAGE).toList();
        assertEquals(1, outages.size());
        long start = outages.get(0).at().toMillis();
        long end = start + outage.plus(FaultSchedule.OUTAGE_RECOVERY).toMillis();
        assertTrue(start >= load.toMillis() / 4 && start <= load.toMillis() / 2, "at " + start);
        for (FaultSchedule.Fault fault : schedule.faults()) {
            long at = fault.at().toMillis();
            assertTrue(fault == outages.get(0) || at < start || at >= end, fault + " inside the outage's stretch");
            assertTrue(at < load.toMillis() * 85 / 100, "inside the window: " + at);
        }
        assertEquals(5 * FaultKind.perRound().size() + 1, schedule.faults().size());
    }
}
