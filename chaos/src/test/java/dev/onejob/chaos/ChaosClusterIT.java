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
 * The chaos run's quick mode on three authenticated brokers ({@code ./onejob chaos --cluster}): each service as its
 * own principal with exactly its ACLs, the upstream on its own topic, and every cluster fault once (a partition
 * leader killed, a rolling restart, a worker joining and leaving) beside the others, then the checker's verdict.
 * The seed is {@code CHAOS_SEED} when set, else a fixed one, so a red build replays exactly.
 */
class ChaosClusterIT {
    private static final long DEFAULT_SEED = 20261206L;

    @Test
    void theClusterHoldsEveryInvariantUnderLeaderKillsRollingRestartsAndRebalances() throws Exception {
        Map<String, String> env = System.getenv();
        ChaosSettings settings = ChaosItSettings.quick(env, DEFAULT_SEED, "chaos-cluster-it").onCluster();
        Path work = settings.work();

        ChaosRun run = new ChaosRun(settings, System.out);
        CheckReport report = run.run(env);

        assertEquals(List.of(), run.faultsNotInflicted(), "every fault was inflicted");
        for (FaultKind kind : FaultKind.perRound(true)) {
            assertEquals(1, report.figure("faults " + kind.wireName()),
                    kind.wireName() + " was not injected; see " + work.resolve("history.jsonl"));
        }
        assertTrue(report.figures().stream().noneMatch(f -> f.name().equals("faults restart-broker")),
                "the single broker's restart is not among the cluster's faults");
        assertTrue(report.figure("intents") >= settings.intents(), "every intent was submitted");
        assertTrue(report.passed(),
                "anomalies (seed " + settings.seed() + ", logs under " + work + "):\n" + report.render());
    }
}
