package dev.onejob.chaos;

import dev.onejob.chaos.check.CheckReport;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * {@code ./onejob chaos [--seed N] [--full]}: runs the chaos run's 2-minute mode (or, with {@code --full}, the
 * 15-minute mode) and exits 0 when the checker found no anomaly and every fault was inflicted, 1 otherwise, 2 on a
 * usage or setup error. The seed (random unless given) is printed first and last, so any run can be replayed. The
 * run directory is
 * {@code .onejob/chaos/<seed>} ({@code CHAOS_DIR} overrides the parent).
 */
public final class ChaosMain {
    private ChaosMain() {
    }

    public static void main(String[] args) {
        long seed = new SecureRandom().nextLong() & Long.MAX_VALUE;
        boolean full = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seed" -> {
                    if (i + 1 >= args.length) {
                        usage("--seed needs a number");
                    }
                    try {
                        seed = Long.parseLong(args[++i]);
                    } catch (NumberFormatException e) {
                        usage("--seed needs a number, was '" + args[i] + "'");
                    }
                }
                case "--full" -> full = true;
                case "--quick" -> full = false;
                case "-h", "--help" -> {
                    System.out.println(help());
                    System.exit(0);
                }
                default -> usage("unknown option '" + args[i] + "'");
            }
        }
        Path root = Path.of(System.getenv().getOrDefault("ONEJOB_ROOT", ".")).toAbsolutePath().normalize();
        Path work = Path.of(System.getenv().getOrDefault("CHAOS_DIR", root.resolve(".onejob/chaos").toString()))
                .resolve(Long.toString(seed)).toAbsolutePath();
        ChaosSettings settings = full ? ChaosSettings.full(seed, root, work) : ChaosSettings.quick(seed, root, work);
        try {
            ChaosRun run = new ChaosRun(settings, System.out);
            CheckReport report = run.run(System.getenv());
            System.exit(report.passed() && run.faultsNotInflicted().isEmpty() ? 0 : 1);
        } catch (InterruptedException e) {
            System.err.println("interrupted; seed " + seed);
            System.exit(2);
        } catch (RuntimeException e) {
            System.err.println("the chaos run could not complete (seed " + seed + "): " + e.getMessage());
            e.printStackTrace();
            System.exit(2);
        }
    }

    private static void usage(String problem) {
        System.err.println(problem + "\n" + help());
        System.exit(2);
    }

    private static String help() {
        return "usage: ./onejob chaos [--seed N] [--full]\n"
                + "  the pipeline as separate processes behind nginx, faults on a seeded schedule, and a check of\n"
                + "  the invariants from the recorded history; --full runs 15 minutes instead of 2";
    }
}
