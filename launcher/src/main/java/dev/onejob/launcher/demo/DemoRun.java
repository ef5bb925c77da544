package dev.onejob.launcher.demo;

import dev.onejob.launcher.cli.CliFailure;
import dev.onejob.launcher.cli.ExitCode;
import dev.onejob.launcher.cli.Table;
import java.util.ArrayList;
import java.util.List;

/**
 * Plays the scenarios in order and tells how they went. Consumes the scenarios and the context; produces, per
 * scenario, its outcome (an exception it throws is a FAIL with the exception's message, and the next scenario still
 * plays), the closing table scenario | expected | observed | result, and the exit status: 0 only when no scenario
 * failed (SKIPPED is no failure).
 */
final class DemoRun {
    /** A scenario and how it went. */
    record Played(Scenario scenario, Scenario.Outcome outcome) {
    }

    private DemoRun() {
    }

    /** The design's scenarios, in the order the story needs (3, 4 and 5 follow one job). */
    static List<Scenario> scenarios() {
        return List.of(new DoubleClickScenario(), new ChangedPayloadScenario(), new TimeoutScenario(),
                new OutOfBandResolutionScenario(), new ReverseOrderFinishScenario(),
                new CertificationFailoverScenario());
    }

    static List<Played> play(List<Scenario> scenarios, DemoContext context) {
        Narrator narrator = context.narrator();
        List<Played> played = new ArrayList<>();
        for (Scenario scenario : scenarios) {
            narrator.heading(scenario.name());
            narrator.say("expected: " + scenario.expected());
            Scenario.Outcome outcome;
            try {
                outcome = scenario.run(context);
            } catch (CliFailure | IllegalStateException e) {
                outcome = Scenario.Outcome.fail("stopped: " + e.getMessage());
            } catch (RuntimeException e) {
                outcome = Scenario.Outcome.fail("stopped: " + e);
            }
            narrator.say(outcome.verdict() == Scenario.Verdict.SKIPPED ? outcome.observed()
                    : outcome.verdict() + ": " + outcome.observed());
            played.add(new Played(scenario, outcome));
        }
        return played;
    }

    static String table(List<Played> played) {
        Table table = new Table("scenario", "expected", "observed", "result")
                .maxWidth(0, 28).maxWidth(1, 44).maxWidth(2, 60);
        played.forEach(p -> table.row(p.scenario().name(), p.scenario().expected(), p.outcome().observed(),
                p.outcome().verdict()));
        return table.render();
    }

    static String summary(List<Played> played) {
        long failed = count(played, Scenario.Verdict.FAIL);
        long skipped = count(played, Scenario.Verdict.SKIPPED);
        long passed = count(played, Scenario.Verdict.PASS);
        return (failed == 0 ? "every scenario played passed" : failed + " scenario(s) FAILED") + " (" + passed
                + " passed, " + failed + " failed, " + skipped + " skipped)";
    }

    static int exitCode(List<Played> played) {
        return count(played, Scenario.Verdict.FAIL) == 0 ? ExitCode.OK : ExitCode.REFUSED;
    }

    private static long count(List<Played> played, Scenario.Verdict verdict) {
        return played.stream().filter(p -> p.outcome().verdict() == verdict).count();
    }
}
