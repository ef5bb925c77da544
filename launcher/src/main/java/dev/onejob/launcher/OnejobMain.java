package dev.onejob.launcher;

import dev.onejob.core.service.AsyncPool;
import dev.onejob.launcher.cli.AttemptsCommand;
import dev.onejob.launcher.cli.CertifyCommand;
import dev.onejob.launcher.cli.CliContext;
import dev.onejob.launcher.cli.CompletionCommand;
import dev.onejob.launcher.cli.JobsCommand;
import dev.onejob.launcher.cli.KafkaCommand;
import dev.onejob.launcher.cli.ModuleCommand;
import dev.onejob.launcher.cli.OnejobCli;
import dev.onejob.launcher.cli.BillingCommand;
import dev.onejob.launcher.cli.OutboxCommand;
import dev.onejob.launcher.cli.ProvidersCommand;
import dev.onejob.launcher.cli.RacesCommand;
import dev.onejob.launcher.demo.DemoCommand;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code ./onejob} command: one picocli command tree. Consumes the command line and the process's
 * {@link CliContext}; produces the chosen command's output and exit status (0 ok, 1 not found or refused, 2 usage
 * or configuration error, 3 cannot reach the service, the database or Kafka). {@code bench} and {@code chaos} come
 * from their own modules, listed in one table ({@link ModuleCommand}); the {@code ./onejob} script runs each command
 * from the module that holds it.
 */
@Command(name = "onejob", mixinStandardHelpOptions = true, version = "onejob 0.1.0",
        description = "Runs AI-provider jobs once per user intent; this command runs the stack, plays the demo,"
                + " measures and attacks it, and operates it.",
        footer = {"", "./onejob help COMMAND and ./onejob COMMAND --help say what each reads and its options.",
            "Exit status: 0 ok, 1 not found or refused, 2 usage or configuration error, 3 cannot reach the service,"
                    + " the database or Kafka."})
public final class OnejobMain implements Callable<Integer> {
    /** Commands whose own logging is the point (services, runs): everything else logs at warn and above. */
    private static final List<String> LOUD = List.of("dev", "bench", "chaos", "cluster");

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        AsyncPool.configure();
        boolean loud = args.length > 0 && (LOUD.contains(args[0])
                || "demo".equals(args[0]) && Arrays.asList(args).contains("--verbose"));
        if (!loud) {
            OnejobCli.quietLogging();
        }
        System.exit(run(args, CliContext.system()));
    }

    /** Runs one command line ({@code args} starts with the command's name) and returns its exit status. */
    public static int run(String[] args, CliContext context) {
        return commandLine(context).execute(args);
    }

    /** The whole command tree, in the order the help lists it. */
    public static CommandLine commandLine(CliContext context) {
        CommandLine.IFactory factory = OnejobCli.factory(context);
        CommandLine root = new CommandLine(new OnejobMain(), factory);
        root.addSubcommand("dev", DevCommand.class);
        root.addSubcommand("demo", DemoCommand.class);
        for (ModuleCommand module : ModuleCommand.all()) {
            Optional<Class<?>> command = module.command();
            root.addSubcommand(module.name(), command.isPresent() ? new CommandLine(command.get(), factory)
                    : absent(module, context, factory));
        }
        root.addSubcommand("cluster", ClusterCommand.class);
        root.addSubcommand("certify", CertifyCommand.class);
        root.addSubcommand("jobs", JobsCommand.class);
        root.addSubcommand("attempts", AttemptsCommand.class);
        root.addSubcommand("providers", ProvidersCommand.class);
        root.addSubcommand("races", RacesCommand.class);
        root.addSubcommand("outbox", OutboxCommand.class);
        root.addSubcommand("billing", BillingCommand.class);
        root.addSubcommand("kafka", KafkaCommand.class);
        root.addSubcommand("completion", CompletionCommand.class);
        root.addSubcommand("help", CommandLine.HelpCommand.class);
        return OnejobCli.configure(root, context);
    }

    /** Listed like the others; run, it says which module holds the command and how {@code ./onejob} runs it. */
    private static CommandLine absent(ModuleCommand module, CliContext context, CommandLine.IFactory factory) {
        CommandLine absent = new CommandLine(OnejobCli.absentModuleCommand(module.name(), module.module(), context),
                factory);
        absent.getCommandSpec().usageMessage().header("Runs from the " + module.module() + " module: ./onejob "
                + module.name() + " --help builds it and says more.");
        return absent;
    }

    /** {@code ./onejob} alone: the help, exit 0. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }
}
