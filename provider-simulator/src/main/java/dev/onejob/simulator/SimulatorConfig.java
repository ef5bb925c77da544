package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * How one simulator instance is set up. Immutable; build it with {@link #defaults()} and the
 * {@code with...} methods, or from the environment with {@link #fromEnvironment(Map)}.
 *
 * <p>Consumed by {@link ProviderSimulator#start(SimulatorConfig)}. {@link #toString()} never shows the
 * API key.
 *
 * @param name                 a label for logs and {@code /_sim/health}
 * @param port                 the loopback port to listen on; 0 = an ephemeral port
 * @param expectedApiKey       the key requests must carry, or {@code null} to accept any or none
 * @param answerFunction       makes the answer of a request (a JSON string is free text, any other value is sent as
 *                             JSON text); default: generated from its schema, prose without one
 * @param tokenCountMultiplier multiplies every input token count (see {@link TokenCounter})
 * @param tokenCountOffset     is added to every input token count after the multiplier
 * @param behaviourPlan        the behaviour for a request's {@code Idempotency-Key} (called with {@code null}
 *                             when there is none) when no rule is installed for that key; {@code null} from it =
 *                             the default rule. Must be cheap, thread-safe and never throw. Default: no plan
 * @param prices               what each model is billed, by the request's {@code model}; a model not listed is
 *                             billed at {@link Price#FREE}. Default: {@link #DEFAULT_PRICES}
 */
public record SimulatorConfig(
        String name,
        int port,
        String expectedApiKey,
        Function<SimRequest, JsonNode> answerFunction,
        double tokenCountMultiplier,
        long tokenCountOffset,
        Function<String, Behaviour> behaviourPlan,
        Map<String, Price> prices) {

    public static final int DEFAULT_PORT = 9001;
    public static final String DEFAULT_NAME = "sim";
    /** The plan that plans nothing: every key without a rule gets the default rule. */
    public static final Function<String, Behaviour> NO_PLAN = key -> null;
    /** The models onejob's {@code config/providers.yaml} uses, at the prices it states (USD per million tokens). */
    public static final Map<String, Price> DEFAULT_PRICES = Map.of(
            "gpt-4o-mini", Price.perMillion("0.15", "0.60", "0.075"),
            "claude-sonnet-4-5", Price.perMillion("3.00", "15.00", "0.30"));

    public SimulatorConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(answerFunction, "answerFunction");
        Objects.requireNonNull(behaviourPlan, "behaviourPlan");
        prices = Map.copyOf(Objects.requireNonNull(prices, "prices"));
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, was " + port);
        }
    }

    /** Without a behaviour plan; kept so callers written before the plan existed still compile. */
    public SimulatorConfig(String name, int port, String expectedApiKey, Function<SimRequest, JsonNode> answerFunction,
                           double tokenCountMultiplier, long tokenCountOffset) {
        this(name, port, expectedApiKey, answerFunction, tokenCountMultiplier, tokenCountOffset, NO_PLAN);
    }

    /** With the default prices; kept so callers written before prices existed still compile. */
    public SimulatorConfig(String name, int port, String expectedApiKey, Function<SimRequest, JsonNode> answerFunction,
                           double tokenCountMultiplier, long tokenCountOffset, Function<String, Behaviour> behaviourPlan) {
        this(name, port, expectedApiKey, answerFunction, tokenCountMultiplier, tokenCountOffset, behaviourPlan,
                DEFAULT_PRICES);
    }

    /**
     * Name "sim", an ephemeral port, no key check, schema-generated answers, unadjusted token counts, no plan, the
     * default prices.
     */
    public static SimulatorConfig defaults() {
        return new SimulatorConfig(DEFAULT_NAME, 0, null, AnswerGenerator::answer, 1.0, 0, NO_PLAN, DEFAULT_PRICES);
    }

    /**
     * Reads {@code SIM_PORT} (default 9001), {@code SIM_NAME} (default "sim") and {@code SIM_API_KEY}
     * (optional; empty = none).
     *
     * @throws IllegalArgumentException naming the variable when a value is unusable
     */
    public static SimulatorConfig fromEnvironment(Map<String, String> environment) {
        String portText = environment.getOrDefault("SIM_PORT", String.valueOf(DEFAULT_PORT)).trim();
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("SIM_PORT must be a port number 0..65535, was '" + portText + "'");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("SIM_PORT must be a port number 0..65535, was " + port);
        }
        String name = environment.getOrDefault("SIM_NAME", DEFAULT_NAME).trim();
        String key = environment.get("SIM_API_KEY");
        return defaults().withName(name.isEmpty() ? DEFAULT_NAME : name).withPort(port)
                .withApiKey(key == null || key.isEmpty() ? null : key);
    }

    public SimulatorConfig withName(String newName) {
        return new SimulatorConfig(newName, port, expectedApiKey, answerFunction, tokenCountMultiplier,
                tokenCountOffset, behaviourPlan, prices);
    }

    public SimulatorConfig withPort(int newPort) {
        return new SimulatorConfig(name, newPort, expectedApiKey, answerFunction, tokenCountMultiplier,
                tokenCountOffset, behaviourPlan, prices);
    }

    public SimulatorConfig withApiKey(String key) {
        return new SimulatorConfig(name, port, key, answerFunction, tokenCountMultiplier, tokenCountOffset,
                behaviourPlan, prices);
    }

    public SimulatorConfig withAnswerFunction(Function<SimRequest, JsonNode> function) {
        return new SimulatorConfig(name, port, expectedApiKey, function, tokenCountMultiplier, tokenCountOffset,
                behaviourPlan, prices);
    }

    public SimulatorConfig withTokenCountAdjustment(double multiplier, long offset) {
        return new SimulatorConfig(name, port, expectedApiKey, answerFunction, multiplier, offset, behaviourPlan,
                prices);
    }

    /** A plan (see {@link #behaviourPlan()}); {@link #NO_PLAN} removes one. */
    public SimulatorConfig withBehaviourPlan(Function<String, Behaviour> plan) {
        return new SimulatorConfig(name, port, expectedApiKey, answerFunction, tokenCountMultiplier, tokenCountOffset,
                plan, prices);
    }

    /** Exactly these prices, replacing all others; a model left out is billed at {@link Price#FREE}. */
    public SimulatorConfig withPrices(Map<String, Price> newPrices) {
        return new SimulatorConfig(name, port, expectedApiKey, answerFunction, tokenCountMultiplier, tokenCountOffset,
                behaviourPlan, newPrices);
    }

    /** These prices for {@code model}, the others kept. */
    public SimulatorConfig withPrice(String model, Price price) {
        Map<String, Price> changed = new HashMap<>(prices);
        changed.put(model, price);
        return withPrices(changed);
    }

    /** What {@code model} is billed at; {@link Price#FREE} when it has no price (or is {@code null}). */
    public Price priceOf(String model) {
        return model == null ? Price.FREE : prices.getOrDefault(model, Price.FREE);
    }

    @Override
    public String toString() {
        return "SimulatorConfig[name=" + name + ", port=" + port
                + ", expectedApiKey=" + (expectedApiKey == null ? "none" : "***")
                + ", tokenCountMultiplier=" + tokenCountMultiplier + ", tokenCountOffset=" + tokenCountOffset
                + ", behaviourPlan=" + (behaviourPlan == NO_PLAN ? "none" : "set")
                + ", pricedModels=" + new TreeSet<>(prices.keySet()) + "]";
    }
}
