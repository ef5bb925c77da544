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

    /** The design's scenarios, their names and promises, in the order the story needs (3, 4 and 5 follow one job). */
    static List<Scenario> scenarios() {
        return List.of(
                new Scenario("1. the double click", "the same request twice with one Idempotency-Key: the same job"
                        + " id twice, exactly one provider call for its attempt, SUCCEEDED", new DoubleClickScenario()),
                new Scenario("2. the changed payload", "same key, different body: 409 idempotency-key-reused naming"
                        + " the job; the job untouched", new ChangedPayloadScenario()),
                new Scenario("3. the timeout", "the primary hangs past its soft timeout: job UNKNOWN, no failover;"
                        + " the fallback button refused with 409 attempt-live naming the attempt",
                        new TimeoutScenario()),
                new Scenario("4. the out-of-band resolution and the fallback", "an operator resolves the attempt"
                        + " CANCELLED: job NEEDS_ACTION; the fallback button -> 202, attempt #2 on backup",
                        new OutOfBandResolutionScenario()),
                new Scenario("5. the reverse-order finish", "the backup answers first and wins; the primary's late"
                        + " answer arrives after and is discarded; one race-audit record (loser #1 primary, winner #2"
                        + " backup)", new ReverseOrderFinishScenario()),
                new Scenario("6. a failover blocked by a failed certification", "the backup fails its certification,"
                        + " then the primary fails: no failover to the backup; job FAILED naming the failed"
                        + " certification", new CertificationFailoverScenario()));
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
