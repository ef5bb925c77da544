package dev.onejob.launcher.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * Stands in for a {@link ModuleCommand} whose module is not on this classpath: listed in the help like the others,
 * and, when run, says which module holds it and that {@code ./onejob} builds and runs it from there (exit 2).
 */
@Command
final class AbsentModuleCommand implements Callable<Integer> {
    private final String name;
    private final String module;
    private final CliContext context;

    @Unmatched
    List<String> arguments = new ArrayList<>();

    AbsentModuleCommand(String name, String module, CliContext context) {
        this.name = name;
        this.module = module;
        this.context = context;
    }

    @Override
    public Integer call() {
        context.err().println("onejob " + name + ": this command lives in the " + module + " module, which is not on"
                + " this classpath; run it as ./onejob " + name + " (the script builds and runs that module)");
        return ExitCode.USAGE;
    }
}
