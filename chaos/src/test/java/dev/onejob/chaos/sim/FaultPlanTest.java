package dev.onejob.chaos.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.chaos.sim.FaultPlan.Fault;
import dev.onejob.simulator.Behaviour;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FaultPlanTest {

    private static final int KEYS = 20_000;

    @Test
    void theSameSeedAndKeyAlwaysGetTheSameBehaviourWhateverTheOrder() {
        // given
        List<String> keys = randomKeys(2_000);
        FaultPlan plan = FaultPlan.withDefaults(42);
        List<Behaviour> first = keys.stream().map(plan).toList();

        // when
        List<String> shuffled = new ArrayList<>(keys);
        Collections.shuffle(shuffled);
        FaultPlan again = FaultPlan.withDefaults(42);
        Map<String, Behaviour> second = new HashMap<>();
        shuffled.forEach(key -> second.put(key, again.apply(key)));

        // then
        for (int i = 0; i < keys.size(); i++) {
            assertEquals(first.get(i), second.get(keys.get(i)), keys.get(i));
        }
    }

    @Test
    void differentSeedsPlanDifferentFaults() {
        // given
        List<String> keys = randomKeys(2_000);
        FaultPlan one = FaultPlan.withDefaults(1);
        FaultPlan two = FaultPlan.withDefaults(2);

        // when
        long differing = keys.stream().filter(key -> one.faultFor(key) != two.faultFor(key)).count();

        // then: with independent plans about half the keys differ (1 minus the sum of squared shares)
        assertTrue(differing > keys.size() / 10, "only " + differing + " of " + keys.size() + " keys differ");
    }

    @Test
    void observedSharesMatchTheConfiguredFractions() {
        // given
        FaultPlan plan = FaultPlan.withDefaults(7);

        // when
        Map<Fault, Integer> counts = new EnumMap<>(Fault.class);
        randomKeys(KEYS).forEach(key -> counts.merge(plan.faultFor(key), 1, Integer::sum));

        // then
        for (Fault fault : Fault.values()) {
            double expected = plan.fractions().get(fault.label());
            double observed = counts.getOrDefault(fault, 0) / (double) KEYS;
            // six standard deviations of a share over KEYS keys: the no-fault answer (about 69%) varies most
            double tolerance = 6 * Math.sqrt(expected * (1 - expected) / KEYS);
            assertEquals(expected, observed, tolerance, fault.label());
        }
    }

    @Test
    void eachFaultMapsToItsSimulatorBehaviour() {
        // given
        FaultPlan plan = FaultPlan.withDefaults(3).withLateAnswerMs(6500).withAnswerDelayMs(20);

        // when
        Set<Behaviour> seen = new HashSet<>();
        randomKeys(KEYS).forEach(key -> seen.add(plan.apply(key)));

        // then: both kinds of contract violation and of poison answer occur, and nothing else does
        assertEquals(Set.of(new Behaviour.Hang(6500L), new Behaviour.Hang(null), new Behaviour.Status(500, null),
                new Behaviour.InventKey(FaultPlan.INVENTED_KEY), new Behaviour.DropField(null, 1),
                new Behaviour.PoisonAnswer("nul", 2 * 1024 * 1024),
                new Behaviour.PoisonAnswer("lone_surrogate", 2 * 1024 * 1024), new Behaviour.Answer(20),
                new Behaviour.Status(429, 1, 1000L, null),
                new Behaviour.Paced((int) (FaultPlan.DEFAULT_LONG_STREAM_MS / FaultPlan.LONG_STREAM_INTERVAL_MS),
                        FaultPlan.LONG_STREAM_INTERVAL_MS, true)), seen);
    }

    @Test
    void keysThatAreNotUuidsAndMissingKeysAreAnsweredNormally() {
        // given: every UUID-shaped key would be a fault under this plan
        FaultPlan plan = FaultPlan.withDefaults(5).withFractions(new FaultPlan.Fractions(0, 0, 1, 0));
        List<String> others = List.of("certify-1", "attempt-42", "", "1-2-3-4-5", UUID.randomUUID() + "x");

        // when / then
        assertEquals(new Behaviour.Status(500, null), plan.apply(UUID.randomUUID().toString()));
        assertEquals(new Behaviour.Status(500, null), plan.apply(UUID.randomUUID().toString().toUpperCase()));
        for (String key : others) {
            assertEquals(new Behaviour.Answer(FaultPlan.DEFAULT_ANSWER_DELAY_MS), plan.apply(key), key);
        }
        assertEquals(new Behaviour.Answer(FaultPlan.DEFAULT_ANSWER_DELAY_MS), plan.apply(null));
    }

    @Test
    void noFaultsMeansEveryKeyIsAnsweredNormally() {
        // given
        FaultPlan plan = FaultPlan.withDefaults(11).withFractions(FaultPlan.Fractions.NONE);

        // when / then
        assertTrue(randomKeys(KEYS).stream().allMatch(key -> plan.faultFor(key) == Fault.ANSWER));
        assertEquals(1.0, plan.fractions().get("answer"));
    }

    @Test
    void describeIsOneTokenNamingTheSeedAndEveryShare() {
        // when
        String description = FaultPlan.withDefaults(42).describe();

        // then
        assertFalse(description.contains(" "), description);
        assertEquals("seed=42,late_answer=0.050/6000ms,hang_forever=0.050,status_500=0.030,"
                + "contract_violation=0.020,poison_answer=0.020,status_429=0.040,long_stream=0.100/60000ms,"
                + "answer=0.690/50ms", description);
    }

    @Test
    void fractionsAddingUpToMoreThanOneAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new FaultPlan.Fractions(0.5, 0.5, 0.1, 0));
        assertThrows(IllegalArgumentException.class, () -> new FaultPlan.Fractions(-0.1, 0, 0, 0));
    }

    /** Keys as random as UUIDs, the same on every run, so that a failure replays. */
    private static List<String> randomKeys(int count) {
        Random random = new Random(count);
        return IntStream.range(0, count).mapToObj(i -> new UUID(random.nextLong(), random.nextLong()).toString())
                .toList();
    }
}
