package dev.onejob.launcher.cli;

import java.io.PrintStream;
import java.util.Map;

/**
 * What a command may use of the world outside it: the environment (tokens, {@code DATABASE_URL},
 * {@code KAFKA_BOOTSTRAP_SERVERS}, ...) and the two output streams. Tests pass their own, so no command reads
 * {@code System.getenv()} or writes to {@code System.out} directly.
 */
public record CliContext(Map<String, String> env, PrintStream out, PrintStream err) {

    public static CliContext system() {
        return new CliContext(System.getenv(), System.out, System.err);
    }

    /** The variable's value, or {@code fallback} when it is unset or blank. */
    public String env(String name, String fallback) {
        String value = env.get(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }
}
