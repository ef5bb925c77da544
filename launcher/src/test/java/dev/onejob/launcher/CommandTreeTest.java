package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.launcher.cli.CliContext;
import dev.onejob.launcher.cli.ExitCode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one command tree of {@code ./onejob}: what it lists, what it refuses, and that help starts nothing. */
class CommandTreeTest {
    private static final List<String> COMMANDS = List.of("dev", "demo", "bench", "chaos", "cluster", "certify", "jobs",
            "attempts", "providers", "races", "outbox", "kafka", "completion", "help");

    record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = OnejobMain.run(args, new CliContext(Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "onejob {0}")
    @ValueSource(strings = {"help", "--help", "-h"})
    void theHelpListsEveryCommand(String help) {
        Run run = run(help);

        assertEquals(ExitCode.OK, run.exit(), run.err());
        for (String command : COMMANDS) {
            assertTrue(run.out().lines().anyMatch(line -> line.trim().startsWith(command + " ")),
                    command + " missing from:\n" + run.out());
        }
    }

    @Test
    void noCommandAtAllPrintsTheHelp() {
        Run run = run();

        assertEquals(ExitCode.OK, run.exit());
        assertTrue(run.out().contains("completion"), run.out());
    }

    @Test
    void devHelpSaysWhatItRunsAndStartsNothing() {
        Run run = run("dev", "--help");

        assertEquals(ExitCode.OK, run.exit(), run.err());
        assertTrue(run.out().contains("Ctrl-C") && run.out().contains("KAFKA_PORT"), run.out());
        assertFalse(run.out().contains("waiting for PostgreSQL"), run.out());
    }

    @Test
    void helpOfACommandIsItsOwnHelp() {
        Run run = run("help", "attempts");

        assertEquals(ExitCode.OK, run.exit(), run.err());
        assertTrue(run.out().contains("resolve"), run.out());
    }

    @Test
    void anUnknownCommandIsAUsageErrorThatNamesIt() {
        Run run = run("deploy");

        assertEquals(ExitCode.USAGE, run.exit());
        assertTrue(run.err().contains("deploy"), run.err());
    }

    @Test
    void aModuleCommandOffItsClasspathSaysWhereItLives() {
        // the launcher's own classpath has neither the benchmark nor the chaos module
        Run bench = run("bench", "--quick");
        Run chaos = run("chaos", "--seed", "7");

        assertEquals(ExitCode.USAGE, bench.exit());
        assertTrue(bench.err().contains("benchmark module") && bench.err().contains("./onejob bench"), bench.err());
        assertEquals(ExitCode.USAGE, chaos.exit());
        assertTrue(chaos.err().contains("chaos module"), chaos.err());
    }

    @Test
    void kafkaWithoutAToolNamesTheTools() {
        Run run = run("kafka");

        assertEquals(ExitCode.USAGE, run.exit());
        assertTrue(run.err().contains("console-consumer") && run.err().contains("producer-perf-test"), run.err());
    }

    @Test
    void theCompletionScriptCoversTheWholeTree() {
        Run run = run("completion");

        assertEquals(ExitCode.OK, run.exit(), run.err());
        assertTrue(run.out().contains("complete -F"), run.out());
        for (String command : List.of("dev", "jobs", "attempts", "console-consumer")) {
            assertTrue(run.out().contains(command), command + " missing from the completion script");
        }
        assertTrue(run.out().contains("--status") && run.out().contains("--limit"),
                "subcommand options missing from the completion script");
    }
}
