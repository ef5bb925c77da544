package dev.onejob.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.chaos.check.CheckReport;
import dev.onejob.chaos.fault.FaultKind;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The chaos run's 2-minute mode inside the test command: every kind of fault once, against the real pipeline, and
 * the checker's verdict. The seed is {@code CHAOS_SEED} when set (to replay a failure), else a fixed one, so a red
 * build replays exactly; {@code ./onejob chaos} draws a new seed on every run to explore.
 */
class ChaosQuickIT {
    private static final long DEFAULT_SEED = 20261202L;

    @Test
    void theQuickModeHoldsEveryInvariantUnderEveryFault() throws Exception {
        Map<String, String> env = System.getenv();
        ChaosSettings settings = ChaosItSettings.quick(env, DEFAULT_SEED, "chaos-it");
        Path work = settings.work();

        ChaosRun run = new ChaosRun(settings, System.out);
        CheckReport report = run.run(env);

        assertEquals(List.of(), run.faultsNotInflicted(), "every fault was inflicted");
        // every kind of a round once; the broker outage is the full mode's alone
        for (FaultKind kind : FaultKind.perRound()) {
            assertEquals(1, report.figure("faults " + kind.wireName()),
                    kind.wireName() + " was not injected; see " + work.resolve("history.jsonl"));
        }
        assertTrue(report.figure("intents") >= settings.intents(), "every intent was submitted");
        assertTrue(report.passed(),
                "anomalies (seed " + settings.seed() + ", logs under " + work + "):\n" + report.render());
    }
}
