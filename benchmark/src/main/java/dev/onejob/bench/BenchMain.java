package dev.onejob.bench;

import dev.onejob.bench.report.Results;
import java.nio.file.Path;

/**
 * {@code ./onejob bench [--quick] [--out DIR]}: the full run writes {@code BENCHMARKS.md} and
 * {@code docs/benchmarks/results.{csv,json}} at the repository root (its logs and recordings under
 * {@code benchmark/target/bench-full}); {@code --quick} writes everything under {@code benchmark/target/bench-quick}
 * (or {@code --out}), never over the root's report. Exit status: 0 when every invariant held and every phase ran,
 * 1 when an invariant was violated, 2 when a phase could not be measured.
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) {
        boolean quick = false;
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--out" -> out = Path.of(args[++i]).toAbsolutePath();
                case "-h", "--help" -> {
                    System.out.println("usage: ./onejob bench [--quick] [--out DIR]");
                    return;
                }
                default -> {
                    System.err.println("unknown argument '" + args[i] + "'; usage: ./onejob bench [--quick] [--out DIR]");
                    System.exit(64);
                }
            }
        }
        Path root = root();
        System.exit(run(root, quick, out));
    }

    /** Runs the benchmark; the exit status described above. */
    public static int run(Path root, boolean quick, Path out) {
        Benchmark.Output output;
        BenchSettings settings;
        if (quick) {
            Path dir = out != null ? out : root.resolve("benchmark/target/bench-quick");
            output = new Benchmark.Output(dir.resolve("BENCHMARKS.md"), dir.resolve("results.csv"),
                    dir.resolve("results.json"), dir.resolve("work"));
            settings = BenchSettings.quick(root, dir);
        } else if (out != null) {
            output = new Benchmark.Output(out.resolve("BENCHMARKS.md"), out.resolve("results.csv"),
                    out.resolve("results.json"), out.resolve("work"));
            settings = BenchSettings.full(root, out);
        } else {
            output = new Benchmark.Output(root.resolve("BENCHMARKS.md"), root.resolve("docs/benchmarks/results.csv"),
                    root.resolve("docs/benchmarks/results.json"), root.resolve("benchmark/target/bench-full"));
            settings = BenchSettings.full(root, root);
        }
        Benchmark benchmark = new Benchmark(settings, output);
        Results results = benchmark.run();
        if (!results.invariantsHold()) {
            return 1;
        }
        return benchmark.phaseFailed() ? 2 : 0;
    }

    /** The repository root: {@code ONEJOB_ROOT}, else the working directory ({@code ./onejob} runs from the root). */
    static Path root() {
        String given = System.getenv("ONEJOB_ROOT");
        return (given == null || given.isBlank() ? Path.of("") : Path.of(given)).toAbsolutePath().normalize();
    }
}
