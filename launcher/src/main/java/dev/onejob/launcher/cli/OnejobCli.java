package dev.onejob.launcher.cli;

import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import picocli.CommandLine;

/**
 * The picocli set-up every {@code ./onejob} command shares. Consumes a {@link CliContext}; produces command lines
 * whose commands are built with that context, print to its streams, turn a {@link CliFailure} into its message on
 * standard error and its exit status, and exit 2 on a usage error. The command tree itself is
 * {@code dev.onejob.launcher.OnejobMain}'s.
 */
public final class OnejobCli {
    private OnejobCli() {
    }

    /** A command line for {@code command} (and the subcommands its annotation names), configured. */
    public static CommandLine commandLine(Object command, CliContext context) {
        return configure(new CommandLine(command, factory(context)), context);
    }

    /** Builds commands that take a {@link CliContext}; everything else (mixins, converters) the picocli way. */
    public static CommandLine.IFactory factory(CliContext context) {
        return new ContextFactory(context);
    }

    /**
     * Applies the shared settings to {@code cli} and every subcommand it has now (picocli copies a setting to the
     * subcommands present when it is set, so add subcommands first).
     */
    public static CommandLine configure(CommandLine cli, CliContext context) {
        cli.setOut(new PrintWriter(context.out(), true));
        cli.setErr(new PrintWriter(context.err(), true));
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExecutionExceptionHandler((e, failed, parsed) -> {
            if (e instanceof CliFailure failure) {
                context.err().println(failed.getCommandSpec().qualifiedName(" ") + ": " + failure.getMessage());
                return failure.exitCode();
            }
            throw e;
        });
        return cli;
    }

    /** A stand-in for a {@link ModuleCommand} whose module is not on this classpath. */
    public static Object absentModuleCommand(String name, String module, CliContext context) {
        return new AbsentModuleCommand(name, module, context);
    }

    /** Kafka clients and the services log at warn and above only, so command output stays readable. */
    public static void quietLogging() {
        // Read by the logging module's logback.xml, which is read when the first logger is made: so set first.
        System.setProperty("onejob.log.onejob", "WARN");
        System.setProperty("onejob.log.kafka", "ERROR");
    }

    private record ContextFactory(CliContext context) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> type) throws Exception {
            for (Constructor<?> constructor : type.getDeclaredConstructors()) {
                Class<?>[] parameters = constructor.getParameterTypes();
                if (parameters.length == 1 && parameters[0] == CliContext.class) {
                    constructor.setAccessible(true);
                    return type.cast(constructor.newInstance(context));
                }
            }
            return CommandLine.defaultFactory().create(type);
        }
    }
}
