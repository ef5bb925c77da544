package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class BehaviourRulesTest {

    @Test
    void perKeyRuleOverridesTheDefaultOnlyForItsKey() {
        // given
        BehaviourRules rules = new BehaviourRules();
        rules.setDefault(Behaviour.status(503), false);
        rules.setForKey("k1", Behaviour.reset(), false);

        // when / then
        assertEquals(Behaviour.reset(), rules.resolve("k1").behaviour());
        assertEquals(Behaviour.reset(), rules.resolve("k1").behaviour());
        assertEquals(Behaviour.status(503), rules.resolve("k2").behaviour());
        assertEquals(Behaviour.status(503), rules.resolve(null).behaviour());
    }

    @Test
    void oneShotRulesApplyOnceThenFallBack() {
        // given
        BehaviourRules rules = new BehaviourRules();
        rules.setDefault(Behaviour.status(500), false);
        rules.setForKey("k", Behaviour.reset(), true);

        // when
        Behaviour first = rules.resolve("k").behaviour();
        Behaviour second = rules.resolve("k").behaviour();
        rules.setDefault(Behaviour.status(429), true);
        Behaviour third = rules.resolve("k").behaviour();
        Behaviour fourth = rules.resolve("k").behaviour();

        // then
        assertEquals(List.of(Behaviour.reset(), Behaviour.status(500), Behaviour.status(429), Behaviour.answer()),
                List.of(first, second, third, fourth));
    }

    /** Sixteen requests released together on {@code pool}: how many of them resolved to a behaviour of {@code kind}. */
    private static long sixteenAtOnce(ExecutorService pool, Callable<Behaviour> resolve, Class<?> kind)
            throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Behaviour>> results = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            results.add(pool.submit(() -> {
                start.await();
                return resolve.call();
            }));
        }
        start.countDown();
        long count = 0;
        for (Future<Behaviour> result : results) {
            count += kind.isInstance(result.get()) ? 1 : 0;
        }
        return count;
    }

    @Test
    void concurrentRequestsConsumeAOneShotRuleExactlyOnce() throws Exception {
        // given
        BehaviourRules rules = new BehaviourRules();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            for (int round = 0; round < 50; round++) {
                rules.setForKey("k", Behaviour.reset(), true);

                // when
                long resets = sixteenAtOnce(pool, () -> rules.resolve("k").behaviour(), Behaviour.Reset.class);

                // then
                assertEquals(1, resets, "round " + round);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void eachRuleCountsItsOwnApplications() {
        // given
        BehaviourRules rules = new BehaviourRules();
        rules.setDefault(Behaviour.dropField(null, 3), false);
        rules.setForKey("k", Behaviour.dropField(null, 3), false);

        // when
        rules.resolve("a");
        rules.resolve("k");
        long defaultSecond = rules.resolve("b").application();
        long keyedSecond = rules.resolve("k").application();
        rules.reset();
        rules.setDefault(Behaviour.dropField(null, 3), false);
        long afterReset = rules.resolve("a").application();

        // then
        assertEquals(2, defaultSecond);
        assertEquals(2, keyedSecond);
        assertEquals(1, afterReset);
    }

    @Test
    void aDefaultForTheNextRequestsAppliesThatManyTimesThenTheOneItReplaced() {
        // given
        BehaviourRules rules = new BehaviourRules();
        rules.setDefault(Behaviour.status(503), false);
        rules.setDefault(Behaviour.status(429, 1), 2);

        // when
        List<Behaviour> applied = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            applied.add(rules.resolve("attempt-" + i).behaviour());
        }

        // then
        assertEquals(List.of(Behaviour.status(429, 1), Behaviour.status(429, 1), Behaviour.status(503),
                Behaviour.status(503)), applied);
    }

    @Test
    void nestedSequencesUnwindInOrder() {
        // given
        BehaviourRules rules = new BehaviourRules();
        rules.setDefault(Behaviour.status(500), 1);
        rules.setDefault(Behaviour.status(429), 2);

        // when
        List<Behaviour> applied = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            applied.add(rules.resolve(null).behaviour());
        }

        // then
        assertEquals(List.of(Behaviour.status(429), Behaviour.status(429), Behaviour.status(500), Behaviour.answer()),
                applied);
    }

    @Test
    void aKeyedSequenceFallsBackToTheKeysEarlierRuleThenToNone() {
        // given
        BehaviourRules rules = new BehaviourRules();
        rules.setDefault(Behaviour.status(503), false);
        rules.setForKey("k", Behaviour.reset(), true);
        rules.setForKey("k", Behaviour.status(429), 2);

        // when
        List<Behaviour> applied = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            applied.add(rules.resolve("k").behaviour());
        }

        // then
        assertEquals(List.of(Behaviour.status(429), Behaviour.status(429), Behaviour.reset(), Behaviour.status(503)),
                applied);
    }

    @Test
    void concurrentRequestsGetASequenceExactlyItsNumberOfTimes() throws Exception {
        // given
        BehaviourRules rules = new BehaviourRules();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            for (int round = 0; round < 200; round++) {
                rules.setDefault(Behaviour.status(429), 5);

                // when
                long refusals = sixteenAtOnce(pool, () -> rules.resolve(null).behaviour(), Behaviour.Status.class);

                // then
                assertEquals(5, refusals, "round " + round);
                assertEquals(Behaviour.answer(), rules.resolve(null).behaviour());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aSequenceIsDescribedWithTheUsesItHasLeft() {
        // given
        BehaviourRules rules = new BehaviourRules();
        rules.setDefault(Behaviour.status(429, 1), 3);

        // when
        rules.resolve(null);

        // then
        assertEquals(2, rules.describe().at("/default/times").asInt());
        assertEquals(429, rules.describe().at("/default/status").asInt());
    }
}
