package dev.onejob.launcher.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code ./onejob completion}: a bash (and zsh) completion script for the whole command tree, on standard output. */
@Command(name = "completion", mixinStandardHelpOptions = true, version = "onejob 0.1.0",
        header = "Prints a bash/zsh completion script: source <(./onejob completion).",
        description = {"Prints a completion script for bash and zsh covering every command and option.",
            "  source <(./onejob completion)"})
public final class CompletionCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getOut().print(AutoComplete.bash("onejob", spec.root().commandLine()));
        spec.commandLine().getOut().flush();
        return ExitCode.OK;
    }
}
