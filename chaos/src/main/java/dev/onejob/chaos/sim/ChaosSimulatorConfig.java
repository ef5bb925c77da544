package dev.onejob.chaos.sim;

import dev.onejob.simulator.SimulatorConfig;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How one chaos simulator process is set up: the provider simulator itself, its fault plan, whether the faults are
 * on at start, and the port of its separate outage control listener.
 *
 * <p>Consumed by {@link ChaosSimulator#start(ChaosSimulatorConfig)}. Built from the environment by
 * {@link #fromEnvironment(Map)}; immutable.
 *
 * @param simulator   the provider simulator's own settings ({@code SIM_PORT}, {@code SIM_NAME}, {@code SIM_API_KEY})
 * @param plan        the seeded fault plan
 * @param faultsOn    {@code false} = every request is answered normally until faults are switched on
 * @param controlPort the loopback port of the control listener; 0 = an ephemeral port
 */
public record ChaosSimulatorConfig(SimulatorConfig simulator, FaultPlan plan, boolean faultsOn, int controlPort) {

    public ChaosSimulatorConfig {
        Objects.requireNonNull(simulator, "simulator");
        Objects.requireNonNull(plan, "plan");
        if (controlPort < 0 || controlPort > 65535) {
            throw new IllegalArgumentException("CHAOS_CONTROL_PORT must be a port number 0..65535, was " + controlPort);
        }
    }

    /**
     * Reads the simulator's variables ({@link SimulatorConfig#fromEnvironment}) plus {@code CHAOS_SEED} (default 0),
     * {@code CHAOS_FAULTS} ({@code true}/{@code false}, default true), {@code CHAOS_LATE_ANSWER_MS} (default 6000),
     * {@code CHAOS_ANSWER_DELAY_MS} (default 50), {@code CHAOS_LONG_STREAM_MS} (how long a long stream flows, default
     * 60000) and {@code CHAOS_CONTROL_PORT} (default 0 = ephemeral). The fault
     * fractions are {@link FaultPlan.Fractions#DEFAULTS}.
     *
     * @throws IllegalArgumentException naming the variable when a value is unusable
     */
    public static ChaosSimulatorConfig fromEnvironment(Map<String, String> environment) {
        SimulatorConfig simulator = SimulatorConfig.fromEnvironment(environment);
        FaultPlan plan = new FaultPlan(number(environment, "CHAOS_SEED", 0, Long.MIN_VALUE),
                FaultPlan.Fractions.DEFAULTS,
                number(environment, "CHAOS_LATE_ANSWER_MS", FaultPlan.DEFAULT_LATE_ANSWER_MS, 0),
                number(environment, "CHAOS_ANSWER_DELAY_MS", FaultPlan.DEFAULT_ANSWER_DELAY_MS, 0),
                number(environment, "CHAOS_LONG_STREAM_MS", FaultPlan.DEFAULT_LONG_STREAM_MS,
                        FaultPlan.LONG_STREAM_INTERVAL_MS));
        long controlPort = number(environment, "CHAOS_CONTROL_PORT", 0, 0);
        if (controlPort > 65535) {
            throw new IllegalArgumentException("CHAOS_CONTROL_PORT must be a port number 0..65535, was " + controlPort);
        }
        return new ChaosSimulatorConfig(simulator, plan, flag(environment, "CHAOS_FAULTS", true), (int) controlPort);
    }

    /** The plan requests get while faults are off: the same delays, no faults. */
    FaultPlan cleanPlan() {
        return plan.withFractions(FaultPlan.Fractions.NONE);
    }

    private static long number(Map<String, String> environment, String name, long fallback, long minimum) {
        String text = environment.get(name);
        if (text == null || text.isBlank()) {
            return fallback;
        }
        long value;
        try {
            value = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, was '" + text + "'");
        }
        if (value < minimum) {
            throw new IllegalArgumentException(name + " must be >= " + minimum + ", was " + value);
        }
        return value;
    }

    private static boolean flag(Map<String, String> environment, String name, boolean fallback) {
        String text = environment.get(name);
        if (text == null || text.isBlank()) {
            return fallback;
        }
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(name + " must be true or false, was '" + text + "'");
        };
    }
}
