package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The behaviour plan: consulted per Idempotency-Key between installed per-key rules and the default rule. */
class BehaviourPlanIT {

    private final Set<String> consulted = ConcurrentHashMap.newKeySet();
    private ProviderSimulator simulator;
    private SimHttp http;

    @BeforeEach
    void start() throws Exception {
        Function<String, Behaviour> plan = key -> {
            consulted.add(String.valueOf(key));
            return key != null && key.startsWith("planned-") ? Behaviour.status(500) : null;
        };
        simulator = ProviderSimulator.start(SimulatorConfig.defaults().withName("plan-it").withBehaviourPlan(plan));
        http = new SimHttp(simulator);
    }

    @AfterEach
    void stop() {
        simulator.close();
    }

    @Test
    void aPlannedBehaviourAppliesToItsKey() throws Exception {
        // when
        HttpResponse<String> planned = http.openAi(SimHttp.openAiBody("hi", null), "planned-1");
        HttpResponse<String> again = http.openAi(SimHttp.openAiBody("hi", null), "planned-1");

        // then
        assertEquals(500, planned.statusCode());
        assertEquals(500, again.statusCode(), "a plan is not one-shot: the same key gets the same behaviour");
        assertEquals(List.of("status", "status"), simulator.ledger().stream().map(LedgerEntry::behaviour).toList());
    }

    @Test
    void anInstalledPerKeyRuleOverridesThePlan() throws Exception {
        // given
        simulator.setBehaviour("planned-2", Behaviour.answer());

        // when
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody("hi", null), "planned-2");

        // then
        assertEquals(200, response.statusCode());
        assertFalse(consulted.contains("planned-2"), "the plan must not be asked when a rule is installed");
    }

    @Test
    void keysThePlanLeavesOpenAndRequestsWithoutAKeyGetTheDefault() throws Exception {
        // given
        simulator.setDefaultBehaviour(Behaviour.status(503));

        // when
        HttpResponse<String> unplanned = http.openAi(SimHttp.openAiBody("hi", null), "other-key");
        HttpResponse<String> keyless = http.openAi(SimHttp.openAiBody("hi", null), null);

        // then
        assertEquals(503, unplanned.statusCode());
        assertEquals(503, keyless.statusCode());
        assertTrue(consulted.containsAll(Set.of("other-key", "null")), "the plan is asked, null key included");
    }

    @Test
    void resettingBehavioursKeepsThePlan() throws Exception {
        // given
        simulator.setBehaviour("planned-3", Behaviour.answer());

        // when
        simulator.resetBehaviours();
        HttpResponse<String> response = http.openAi(SimHttp.openAiBody("hi", null), "planned-3");

        // then
        assertEquals(500, response.statusCode());
    }
}
