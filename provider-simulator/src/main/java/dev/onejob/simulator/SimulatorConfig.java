package dev.onejob.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Objects;
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
 * @param answerFunction       makes the answer object of a request; default: generated from its schema
 * @param tokenCountMultiplier multiplies every input token count (see {@link TokenCounter})
 * @param tokenCountOffset     is added to every input token count after the multiplier
 * @param behaviourPlan        the behaviour for a request's {@code Idempotency-Key} (called with {@code null}
 *                             when there is none) when no rule is installed for that key; {@code null} from it =
 *                             the default rule. Must be cheap, thread-safe and never throw. Default: no plan
 */
public record SimulatorConfig(
        String name,
        int port,
        String expectedApiKey,
        Function<SimRequest, JsonNode> answerFunction,
        double tokenCountMultiplier,
        long tokenCountOffset,
        Function<String, Behaviour> behaviourPlan) {

    public static final int DEFAULT_PORT = 9001;
    public static final String DEFAULT_NAME = "sim";
    /** The plan that plans nothing: every key without a rule gets the default rule. */
    public static final Function<String, Behaviour> NO_PLAN = key -> null;

    public SimulatorConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(answerFunction, "answerFunction");
        Objects.requireNonNull(behaviourPlan, "behaviourPlan");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, was " + port);
        }
    }

    /** Without a behaviour plan; kept so callers written before the plan existed still compile. */
    public SimulatorConfig(String name, int port, String expectedApiKey, Function<SimRequest, JsonNode> answerFunction,
                           double tokenCountMultiplier, long tokenCountOffset) {
        this(name, port, expectedApiKey, answerFunction, tokenCountMultiplier, tokenCountOffset, NO_PLAN);
    }

    /** Name "sim", an ephemeral port, no key check, schema-generated answers, unadjusted token counts, no plan. */
    public static SimulatorConfig defaults() {
        return new SimulatorConfig(DEFAULT_NAME, 0, null, AnswerGenerator::answer, 1.0, 0, NO_PLAN);
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
                tokenCountOffset, behaviourPlan);
    }

    public SimulatorConfig withPort(int newPort) {
        return new SimulatorConfig(name, newPort, expectedApiKey, answerFunction, tokenCountMultiplier,
                tokenCountOffset, behaviourPlan);
    }

    public SimulatorConfig withApiKey(String key) {
        return new SimulatorConfig(name, port, key, answerFunction, tokenCountMultiplier, tokenCountOffset,
                behaviourPlan);
    }

    public SimulatorConfig withAnswerFunction(Function<SimRequest, JsonNode> function) {
        return new SimulatorConfig(name, port, expectedApiKey, function, tokenCountMultiplier, tokenCountOffset,
                behaviourPlan);
    }

    public SimulatorConfig withTokenCountAdjustment(double multiplier, long offset) {
        return new SimulatorConfig(name, port, expectedApiKey, answerFunction, multiplier, offset, behaviourPlan);
    }

    /** A plan (see {@link #behaviourPlan()}); {@link #NO_PLAN} removes one. */
    public SimulatorConfig withBehaviourPlan(Function<String, Behaviour> plan) {
        return new SimulatorConfig(name, port, expectedApiKey, answerFunction, tokenCountMultiplier, tokenCountOffset,
                plan);
    }

    @Override
    public String toString() {
        return "SimulatorConfig[name=" + name + ", port=" + port
                + ", expectedApiKey=" + (expectedApiKey == null ? "none" : "***")
                + ", tokenCountMultiplier=" + tokenCountMultiplier + ", tokenCountOffset=" + tokenCountOffset
                + ", behaviourPlan=" + (behaviourPlan == NO_PLAN ? "none" : "set") + "]";
    }
}
