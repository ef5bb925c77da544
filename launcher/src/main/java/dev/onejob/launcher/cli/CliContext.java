package dev.onejob.launcher.cli;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a command may use of the world outside it: the environment (tokens, {@code DATABASE_URL},
 * {@code KAFKA_BOOTSTRAP_SERVERS}, ...), where the running {@code ./onejob dev} stack is (its {@link StackFile}),
 * and the two output streams. Tests pass their own, so no command reads {@code System.getenv()} or writes to
 * {@code System.out} directly.
 *
 * <p>Commands that talk to a running stack (the operator commands, the demo with {@code --url}) read
 * {@link #running}: the environment first, then the stack file. Commands that start a stack of their own
 * ({@code dev}, the demo without {@code --url}) read {@link #env} only, so they never join a running stack's broker
 * or consumer groups by accident.
 */
public record CliContext(Map<String, String> env, Map<String, String> stack, PrintStream out, PrintStream err) {

    /** A context with no running stack. */
    public CliContext(Map<String, String> env, PrintStream out, PrintStream err) {
        this(env, Map.of(), out, err);
    }

    public static CliContext system() {
        Map<String, String> env = System.getenv();
        return new CliContext(env, StackFile.readLive(StackFile.in(env)), System.out, System.err);
    }

    /** The variable's value, or {@code fallback} when it is unset or blank. */
    public String env(String name, String fallback) {
        String value = env.get(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    /** The variable's value, else the running stack's, else {@code fallback}. */
    public String running(String name, String fallback) {
        return env(name, stack.getOrDefault(name, fallback));
    }

    /** The environment with the running stack's variables filling what it leaves unset or blank. */
    public Map<String, String> runningEnv() {
        Map<String, String> merged = new LinkedHashMap<>(stack);
        env.forEach((name, value) -> {
            if (value != null && !value.isBlank() || !merged.containsKey(name)) {
                merged.put(name, value);
            }
        });
        return merged;
    }
}
