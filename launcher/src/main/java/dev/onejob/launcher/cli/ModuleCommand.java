package dev.onejob.launcher.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * A command another module adds to {@code ./onejob} ({@code bench} in the benchmark module, {@code chaos} in the
 * chaos module), as listed in the one table of them, {@code dev/onejob/launcher/module-commands.txt}: the
 * {@code ./onejob} script reads it to run each command from the module that holds it, and the command tree reads it
 * to load the command class when that module is on the classpath. The class is a picocli command, built like every
 * other command; where it is absent, {@code ./onejob} still lists the command and says how to run it.
 */
public record ModuleCommand(String name, String module, String className) {
    /** The table's place on the classpath (and under {@code launcher/src/main/resources}). */
    public static final String TABLE = "/dev/onejob/launcher/module-commands.txt";

    /** Every row of the table, in its order. */
    public static List<ModuleCommand> all() {
        try (InputStream in = ModuleCommand.class.getResourceAsStream(TABLE)) {
            if (in == null) {
                throw new IllegalStateException(TABLE + " is missing from the launcher's classpath");
            }
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines()
                    .map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#"))
                    .map(line -> line.split("\\s+")).map(f -> new ModuleCommand(f[0], f[1], f[2])).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + TABLE, e);
        }
    }

    /** The command class, when its module is on this classpath. */
    public Optional<Class<?>> command() {
        try {
            return Optional.of(Class.forName(className));
        } catch (ClassNotFoundException e) {
            return Optional.empty();
        }
    }
}
