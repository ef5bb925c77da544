package dev.onejob.launcher.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class DemoRunTest {
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();
    private final DemoContext context = new DemoContext(new Narrator(new PrintStream(output, true,
            StandardCharsets.UTF_8)), null, null, null, null, null, Duration.ofSeconds(1));

    private static Scenario scenario(String name, Function<DemoContext, Scenario.Outcome> body) {
        return new Scenario(name, "as designed", body::apply);
    }

    @Test
    void passedAndSkippedScenariosExitZero() {
        // given one scenario that passes and one that is skipped
        var played = DemoRun.play(List.of(scenario("1. a", c -> Scenario.Outcome.pass("fine")),
                scenario("2. b", c -> Scenario.Outcome.skipped("SKIPPED: not there yet"))), context);

        // then the run counts as passed
        assertEquals(0, DemoRun.exitCode(played));
        assertTrue(DemoRun.summary(played).contains("1 passed, 0 failed, 1 skipped"), DemoRun.summary(played));
    }

    @Test
    void aScenarioThatThrowsFailsTheRunAndTheNextOneStillPlays() {
        // given a scenario that throws, then one that passes
        var played = DemoRun.play(List.of(
                scenario("1. broken", c -> {
                    throw new IllegalStateException("GET /v1/jobs/x answered 404");
                }),
                scenario("2. fine", c -> Scenario.Outcome.pass("fine"))), context);

        // then the first is a FAIL with the reason, the second still PASSed, and the run exits 1
        assertEquals(Scenario.Verdict.FAIL, played.get(0).outcome().verdict());
        assertTrue(played.get(0).outcome().observed().contains("404"));
        assertEquals(Scenario.Verdict.PASS, played.get(1).outcome().verdict());
        assertEquals(1, DemoRun.exitCode(played));
    }

    @Test
    void theTableHasOneRowPerScenarioWithItsVerdict() {
        // given
        var played = DemoRun.play(List.of(scenario("1. a", c -> Scenario.Outcome.pass("seen")),
                scenario("2. b", c -> Scenario.Outcome.fail("not seen"))), context);

        // when
        List<String> lines = DemoRun.table(played).lines().toList();

        // then
        assertEquals(List.of("scenario", "expected", "observed", "result"), List.of(lines.get(0).split("\\s{2,}")));
        assertTrue(lines.get(2).startsWith("1. a") && lines.get(2).endsWith("PASS"), lines.get(2));
        assertTrue(lines.get(3).startsWith("2. b") && lines.get(3).endsWith("FAIL"), lines.get(3));
    }

    @Test
    void checksPassOnlyWhenEveryExpectationHeldAndNameTheOnesThatDidNot() {
        Checks checks = new Checks();
        checks.check(true, "the same job id twice");
        checks.check(false, "exactly one provider call");

        Scenario.Outcome outcome = checks.outcome("2 calls");

        assertEquals(Scenario.Verdict.FAIL, outcome.verdict());
        assertTrue(outcome.observed().contains("exactly one provider call"), outcome.observed());
        assertTrue(!outcome.observed().contains("the same job id twice"), outcome.observed());
    }
}
