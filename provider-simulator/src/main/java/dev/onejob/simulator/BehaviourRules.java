package dev.onejob.simulator;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Decides which behaviour applies to a request: the rule installed for its {@code Idempotency-Key}
 * if any, else what the behaviour plan (see {@link SimulatorConfig#behaviourPlan()}) says for that key,
 * else the simulator-wide default rule.
 *
 * <p>Consumes idempotency keys; produces the behaviour plus how many times that rule has now been
 * applied (the count {@code drop_field every_nth} works from). Owns the installed rules, each with its
 * own application counter; one-shot rules are removed atomically by the request that uses them, so
 * with concurrent requests exactly one gets a one-shot behaviour. The plan is given, not owned; its
 * behaviours share one application counter, so a planned {@code drop_field} with {@code every_nth} above
 * 1 depends on arrival order (plans that must not should use 1).
 */
final class BehaviourRules {

    /** The behaviour chosen for one request, and the 1-based count of this rule's applications. */
    record Applied(Behaviour behaviour, long application) {
    }

    private static final class Rule {
        private final Behaviour behaviour;
        private final boolean oneShot;
        private final AtomicLong applications = new AtomicLong();

        private Rule(Behaviour behaviour, boolean oneShot) {
            this.behaviour = behaviour;
            this.oneShot = oneShot;
        }

        private Applied apply() {
            return new Applied(behaviour, applications.incrementAndGet());
        }
    }

    private final AtomicReference<Rule> defaultRule = new AtomicReference<>(answerRule());
    private final Map<String, Rule> byKey = new ConcurrentHashMap<>();
    private final Function<String, Behaviour> plan;
    private final AtomicLong planApplications = new AtomicLong();

    BehaviourRules(Function<String, Behaviour> plan) {
        this.plan = plan;
    }

    BehaviourRules() {
        this(SimulatorConfig.NO_PLAN);
    }

    void setDefault(Behaviour behaviour, boolean oneShot) {
        defaultRule.set(new Rule(behaviour, oneShot));
    }

    void setForKey(String idempotencyKey, Behaviour behaviour, boolean oneShot) {
        byKey.put(idempotencyKey, new Rule(behaviour, oneShot));
    }

    void clearKey(String idempotencyKey) {
        byKey.remove(idempotencyKey);
    }

    void reset() {
        byKey.clear();
        defaultRule.set(answerRule());
    }

    Applied resolve(String idempotencyKey) {
        if (idempotencyKey != null) {
            Rule rule = byKey.get(idempotencyKey);
            if (rule != null && (!rule.oneShot || byKey.remove(idempotencyKey, rule))) {
                return rule.apply();
            }
        }
        Behaviour planned = plan.apply(idempotencyKey);
        if (planned != null) {
            return new Applied(planned, planApplications.incrementAndGet());
        }
        while (true) {
            Rule rule = defaultRule.get();
            if (!rule.oneShot || defaultRule.compareAndSet(rule, answerRule())) {
                return rule.apply();
            }
        }
    }

    /** The installed rules as {@code {"default": spec, "by_idempotency_key": {key: spec}}}. */
    ObjectNode describe() {
        ObjectNode description = Json.object();
        Rule fallback = defaultRule.get();
        description.set("default", BehaviourJson.write(fallback.behaviour, fallback.oneShot));
        ObjectNode keyed = description.putObject("by_idempotency_key");
        new TreeMap<>(byKey).forEach((key, rule) -> keyed.set(key, BehaviourJson.write(rule.behaviour, rule.oneShot)));
        return description;
    }

    private static Rule answerRule() {
        return new Rule(Behaviour.answer(), false);
    }
}
