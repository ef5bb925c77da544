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
 * own application counter. A rule may be limited: one-shot (the first request takes it; then the default is
 * {@code answer} again and a per-key rule is gone) or for the next {@code times} requests (then the rule it
 * replaced applies again, e.g. "the next 2 requests get a 429, then the usual default"). A limited rule counts
 * down atomically as requests claim it, so with concurrent requests exactly that many get it. The plan is given,
 * not owned; its behaviours share one application counter, so a planned {@code drop_field} with {@code every_nth}
 * above 1 depends on arrival order (plans that must not should use 1).
 */
final class BehaviourRules {

    /** The behaviour chosen for one request, and the 1-based count of this rule's applications. */
    record Applied(Behaviour behaviour, long application) {
    }

    private static final long UNLIMITED = -1;

    /** One installed rule; a limited one knows what applies once it is used up ({@code null}: no rule). */
    private static final class Rule {
        private final Behaviour behaviour;
        private final boolean oneShot;
        private final Integer times;
        private final AtomicLong remaining;
        private final Rule after;
        private final AtomicLong applications = new AtomicLong();

        private Rule(Behaviour behaviour, boolean oneShot, Integer times, Rule after) {
            this.behaviour = behaviour;
            this.oneShot = oneShot;
            this.times = times;
            this.remaining = new AtomicLong(oneShot ? 1 : times != null ? times : UNLIMITED);
            this.after = after;
        }

        private boolean limited() {
            return oneShot || times != null;
        }

        /** Claims one use of a limited rule: true for exactly as many callers as it has uses. */
        private boolean claim() {
            return remaining.getAndUpdate(left -> left > 0 ? left - 1 : 0) > 0;
        }

        private boolean usedUp() {
            return remaining.get() == 0;
        }

        private Applied apply() {
            return new Applied(behaviour, applications.incrementAndGet());
        }

        /** The rule's spec; {@code times} says how many uses are left. */
        private ObjectNode describe() {
            ObjectNode spec = BehaviourJson.write(behaviour, oneShot);
            if (times != null) {
                spec.put("times", Math.max(0, remaining.get()));
            }
            return spec;
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
        defaultRule.set(new Rule(behaviour, oneShot, null, oneShot ? answerRule() : null));
    }

    /** The default for the next {@code times} requests that reach it; then the default it replaced again. */
    void setDefault(Behaviour behaviour, int times) {
        requirePositive(times);
        defaultRule.getAndUpdate(previous -> new Rule(behaviour, false, times, previous));
    }

    void setDefault(BehaviourJson.Spec spec) {
        if (spec.times() != null) {
            setDefault(spec.behaviour(), spec.times());
        } else {
            setDefault(spec.behaviour(), spec.oneShot());
        }
    }

    void setForKey(String idempotencyKey, Behaviour behaviour, boolean oneShot) {
        byKey.put(idempotencyKey, new Rule(behaviour, oneShot, null, null));
    }

    /** The rule of this key for its next {@code times} requests; then the key's rule it replaced, if any. */
    void setForKey(String idempotencyKey, Behaviour behaviour, int times) {
        requirePositive(times);
        byKey.compute(idempotencyKey, (key, previous) -> new Rule(behaviour, false, times, previous));
    }

    void setForKey(String idempotencyKey, BehaviourJson.Spec spec) {
        if (spec.times() != null) {
            setForKey(idempotencyKey, spec.behaviour(), spec.times());
        } else {
            setForKey(idempotencyKey, spec.behaviour(), spec.oneShot());
        }
    }

    void clearKey(String idempotencyKey) {
        byKey.remove(idempotencyKey);
    }

    void reset() {
        byKey.clear();
        defaultRule.set(answerRule());
    }

    /** The behaviour for a request with {@code idempotencyKey}, a {@link Mix} resolved to its choice. */
    Applied resolve(String idempotencyKey) {
        Applied applied = resolveRule(idempotencyKey);
        Behaviour behaviour = applied.behaviour();
        while (behaviour instanceof Mix mix) {
            behaviour = mix.choose(idempotencyKey);
        }
        return behaviour == applied.behaviour() ? applied : new Applied(behaviour, applied.application());
    }

    private Applied resolveRule(String idempotencyKey) {
        if (idempotencyKey != null) {
            Applied keyed = resolveKeyed(idempotencyKey);
            if (keyed != null) {
                return keyed;
            }
        }
        Behaviour planned = plan.apply(idempotencyKey);
        if (planned != null) {
            return new Applied(planned, planApplications.incrementAndGet());
        }
        while (true) {
            Rule rule = defaultRule.get();
            if (!rule.limited()) {
                return rule.apply();
            }
            boolean claimed = rule.claim();
            if (rule.usedUp()) {
                // Whoever sees it used up moves on to what follows; only the first such swap takes effect.
                defaultRule.compareAndSet(rule, rule.after == null ? answerRule() : rule.after);
            }
            if (claimed) {
                return rule.apply();
            }
        }
    }

    private Applied resolveKeyed(String idempotencyKey) {
        Rule rule = byKey.get(idempotencyKey);
        while (rule != null) {
            if (!rule.limited()) {
                return rule.apply();
            }
            boolean claimed = rule.claim();
            if (rule.usedUp()) {
                if (rule.after == null) {
                    byKey.remove(idempotencyKey, rule);
                } else {
                    byKey.replace(idempotencyKey, rule, rule.after);
                }
            }
            if (claimed) {
                return rule.apply();
            }
            rule = byKey.get(idempotencyKey);
        }
        return null;
    }

    /** The installed rules as {@code {"default": spec, "by_idempotency_key": {key: spec}}}. */
    ObjectNode describe() {
        ObjectNode description = Json.object();
        description.set("default", defaultRule.get().describe());
        ObjectNode keyed = description.putObject("by_idempotency_key");
        new TreeMap<>(byKey).forEach((key, rule) -> keyed.set(key, rule.describe()));
        return description;
    }

    private static void requirePositive(int times) {
        if (times < 1) {
            throw new IllegalArgumentException("times must be >= 1, was " + times);
        }
    }

    private static Rule answerRule() {
        return new Rule(Behaviour.answer(), false, null, null);
    }
}
