package dev.onejob.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.json.Json;
import dev.onejob.launcher.OnejobMain;
import dev.onejob.stack.infra.LoopbackPorts;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The exit statuses that need no running stack: help, usage errors, and a service that is not there. */
class CliExitCodeTest {
    /** Output of one command run. */
    record Run(int exit, String out, String err) {
    }

    static Run run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = OnejobMain.run(args, new CliContext(env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static Stream<Arguments> everyCommand() {
        return Stream.of(Arguments.of("jobs", "get"), Arguments.of("jobs", "list"), Arguments.of("jobs", "cancel"),
                Arguments.of("attempts", "resolve"), Arguments.of("providers", "list"),
                Arguments.of("races", "tail"), Arguments.of("outbox", "status"), Arguments.of("billing", "reconcile"));
    }

    @ParameterizedTest(name = "{0} {1} --help")
    @MethodSource("everyCommand")
    void helpOfEveryCommandExitsZeroAndSaysWhatItTalksTo(String group, String command) {
        // when
        Run run = run(Map.of(), group, command, "--help");

        // then
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().contains("onejob " + group + " " + command), run.out());
        assertTrue(run.out().contains("HTTP API") || run.out().contains("database")
                || run.out().contains("Kafka"), run.out());
    }

    @Test
    void helpOfTheGroupsListsTheirCommands() {
        assertTrue(run(Map.of(), "--help").out().contains("outbox"));
        assertTrue(run(Map.of(), "jobs", "--help").out().contains("cancel"));
    }

    @Test
    void anUnknownOptionIsAUsageError() {
        Run run = run(Map.of(), "jobs", "list", "--colour");

        assertEquals(ExitCode.USAGE, run.exit());
        assertTrue(run.err().contains("--colour"), run.err());
    }

    @Test
    void certifyNeedsAProviderAndAContractOrAllAndNamesAnUnknownProvider() {
        Run nothing = run(Map.of(), "certify");
        assertEquals(ExitCode.USAGE, nothing.exit());
        assertTrue(nothing.err().contains("--all"), nothing.err());
        Run unknown = run(Map.of("PROVIDERS_FILE", "../config/providers.yaml", "CONTRACTS_DIR", "../config/contracts"),
                "providers", "certify", "--provider", "nobody", "--contract", "sentiment");
        assertEquals(ExitCode.USAGE, unknown.exit());
        assertTrue(unknown.err().contains("nobody"), unknown.err());
    }

    @Test
    void aGroupWithoutItsCommandIsAUsageError() {
        assertEquals(ExitCode.USAGE, run(Map.of(), "jobs").exit());
    }

    @Test
    void noTokenIsAUsageErrorThatSaysWhereTheTokenComesFrom() {
        Run run = run(Map.of(), "jobs", "get", UUID.randomUUID().toString());

        assertEquals(ExitCode.USAGE, run.exit());
        assertTrue(run.err().contains("ONEJOB_TOKEN"), run.err());
    }

    @Test
    void anApiThatDoesNotListenExitsThree() {
        // given a port nobody listens on
        int port = LoopbackPorts.free();

        // when
        Run run = run(Map.of("ONEJOB_TOKEN", "t"), "jobs", "get", UUID.randomUUID().toString(), "--url",
                "http://127.0.0.1:" + port);

        // then
        assertEquals(ExitCode.UNREACHABLE, run.exit());
        assertTrue(run.err().contains("cannot reach"), run.err());
    }

    @Test
    void aDatabaseThatDoesNotListenExitsThree() {
        int port = LoopbackPorts.free();

        Run run = run(Map.of("DATABASE_URL", "jdbc:postgresql://127.0.0.1:" + port + "/onejob"), "outbox", "status");

        assertEquals(ExitCode.UNREACHABLE, run.exit(), run.err());
    }

    @Test
    void answersMapToExitStatuses() {
        assertEquals(ExitCode.OK, response(202).exitCode());
        assertEquals(ExitCode.REFUSED, response(403).exitCode());
        assertEquals(ExitCode.REFUSED, response(404).exitCode());
        assertEquals(ExitCode.REFUSED, response(409).exitCode());
        assertEquals(ExitCode.USAGE, response(401).exitCode());
        assertEquals(ExitCode.USAGE, response(422).exitCode());
        assertEquals(ExitCode.UNREACHABLE, response(503).exitCode());
    }

    private static ApiClient.Response response(int status) {
        return new ApiClient.Response(status, Json.object(), Map.of());
    }
}
