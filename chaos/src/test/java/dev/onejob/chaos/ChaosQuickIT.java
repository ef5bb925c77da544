package dev.onejob.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.chaos.check.CheckReport;
import dev.onejob.chaos.fault.FaultKind;
import java.io.PrintStream;
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
        long seed = Long.parseLong(env.getOrDefault("CHAOS_SEED", Long.toString(DEFAULT_SEED)));
        Path root = Path.of(env.getOrDefault("ONEJOB_ROOT", "..")).toAbsolutePath().normalize();
        Path work = root.resolve("chaos/target/chaos-it").resolve(Long.toString(seed));
        PrintStream out = System.out;

        ChaosRun run = new ChaosRun(ChaosSettings.quick(seed, root, work), out);
        CheckReport report = run.run(env);

        assertEquals(List.of(), run.faultsNotInflicted(), "every fault was inflicted");
        // every kind of a round once; the broker outage is the full mode's alone
        for (FaultKind kind : FaultKind.perRound()) {
            assertEquals(1, report.figure("faults " + kind.label()),
                    kind.label() + " was not injected; see " + work.resolve("history.jsonl"));
        }
        assertTrue(report.figure("intents") >= ChaosSettings.quick(seed, root, work).intents(),
                "every intent was submitted");
        assertTrue(report.passed(), "anomalies (seed " + seed + ", logs under " + work + "):\n" + report.render());
    }
}
