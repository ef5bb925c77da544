package dev.onejob.launcher.cli;

/**
 * A command another module adds to {@code ./onejob} ({@code bench} in the benchmark module, {@code chaos} in the
 * chaos module), found with {@link java.util.ServiceLoader} on the classpath the command runs from. The command
 * class is a picocli command; it is built like every other command, with a constructor taking a {@link CliContext}
 * if it has one. Where the module is not on the classpath, {@code ./onejob} still lists the command and says how
 * to run it.
 */
public interface ModuleCommand {
    /** The picocli command class. */
    Class<?> command();

    /** The command's name, as typed after {@code ./onejob}: its {@code @Command} name. */
    default String name() {
        return command().getAnnotation(picocli.CommandLine.Command.class).name();
    }
}
