package dev.onejob.launcher.cli;

import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The operator commands of {@code ./onejob}: {@code jobs}, {@code attempts}, {@code providers}, {@code races},
 * {@code outbox}. Consumes the command line and a {@link CliContext}; produces the command's output and its exit
 * status ({@link ExitCode}); owns the picocli set-up they share: commands are built with the context, a
 * {@link CliFailure} becomes its message on standard error and its exit status, a usage error exits 2.
 */
@Command(name = "onejob", mixinStandardHelpOptions = true, version = "onejob 0.1.0",
        subcommands = {JobsCommand.class, AttemptsCommand.class, ProvidersCommand.class, RacesCommand.class,
            OutboxCommand.class, CertifyCommand.class},
        description = {"Operator commands for a running onejob stack.",
            "Exit status: 0 ok, 1 not found or refused, 2 usage or configuration error,"
                    + " 3 cannot reach the service, the database or Kafka."})
public final class OnejobCli {
    /** Runs one command with the process's environment and streams, then exits with its status. */
    public static void main(String[] args) {
        quietLogging();
        System.exit(run(args, CliContext.system()));
    }

    /** Runs one command ({@code args} starts with its name, e.g. {@code jobs get ID}) and returns its exit status. */
    public static int run(String[] args, CliContext context) {
        return commandLine(new OnejobCli(), context).execute(args);
    }

    /**
     * A picocli command line for {@code command} (and its subcommands) built the operator commands' way; the demo
     * uses it too.
     */
    public static CommandLine commandLine(Object command, CliContext context) {
        CommandLine cli = new CommandLine(command, new ContextFactory(context));
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

    /** Kafka clients and the services log at warn and above only, so command output stays readable. */
    public static void quietLogging() {
        // Read by the logging module's logback.xml, which is read when the first logger is made: so set first.
        System.setProperty("onejob.log.onejob", "WARN");
        System.setProperty("onejob.log.kafka", "ERROR");
    }

    /** Builds commands that take a {@link CliContext}; everything else (mixins, converters) the picocli way. */
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
