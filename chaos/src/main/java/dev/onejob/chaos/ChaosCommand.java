package dev.onejob.chaos;

import dev.onejob.chaos.check.CheckReport;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./onejob chaos [--seed N] [--full] [--cluster]}: runs the chaos run's 2-minute mode (or, with {@code --full}, the
 * 15-minute mode) and exits 0 when the checker found no anomaly and every fault was inflicted, 1 otherwise, 2 on a
 * usage or setup error. The seed (random unless given) is printed first and last, so any run can be replayed. The
 * run directory is {@code .onejob/chaos/<seed>} ({@code CHAOS_DIR} overrides the parent).
 */
@Command(name = "chaos", mixinStandardHelpOptions = true, version = "onejob 0.1.0", sortOptions = false,
        header = "Runs the pipeline under seeded faults and checks every invariant.",
        description = {"Runs the pipeline as separate processes behind nginx, with its own PostgreSQL cluster,"
                + " inflicts faults on a seeded schedule, and checks the invariants from the recorded history.",
            "Exit status: 0 no anomaly and every fault inflicted, 1 otherwise, 2 usage or setup error."})
public final class ChaosCommand implements Callable<Integer> {
    @Option(names = "--seed", paramLabel = "N", description = "Replay this seed (default: a random one, printed).")
    Long seed;

    @Option(names = "--full", description = "The 15-minute mode instead of the 2-minute one.")
    boolean full;

    @Option(names = "--quick", description = "The 2-minute mode (the default).")
    boolean quick;

    @Option(names = "--cluster", description = "On three authenticated Kafka brokers (SASL/SCRAM, ACLs per service,"
            + " replication 3, min.insync.replicas 2), with a partition leader killed, a rolling restart of every"
            + " broker and a worker joining and leaving among the faults; the quick mode then loads for 3 minutes.")
    boolean cluster;

    @Override
    public Integer call() {
        long chosen = seed != null ? seed : new SecureRandom().nextLong() & Long.MAX_VALUE;
        Path root = Path.of(System.getenv().getOrDefault("ONEJOB_ROOT", ".")).toAbsolutePath().normalize();
        Path work = Path.of(System.getenv().getOrDefault("CHAOS_DIR", root.resolve(".onejob/chaos").toString()))
                .resolve(Long.toString(chosen)).toAbsolutePath();
        boolean fullMode = full && !quick;
        ChaosSettings settings = fullMode ? ChaosSettings.full(chosen, root, work)
                : ChaosSettings.quick(chosen, root, work);
        if (cluster) {
            settings = settings.onCluster();
        }
        try {
            ChaosRun run = new ChaosRun(settings, System.out);
            CheckReport report = run.run(System.getenv());
            return report.passed() && run.faultsNotInflicted().isEmpty() ? 0 : 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.err.println("interrupted; seed " + chosen);
            return 2;
        } catch (RuntimeException e) {
            System.err.println("the chaos run could not complete (seed " + chosen + "): " + e.getMessage());
            e.printStackTrace();
            return 2;
        }
    }
}
