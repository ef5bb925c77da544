package dev.onejob.bench;

import dev.onejob.bench.report.Results;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./onejob bench [--quick] [--out DIR]}: the full run writes {@code BENCHMARKS.md} and
 * {@code docs/benchmarks/results.{csv,json}} at the repository root (its logs and recordings under
 * {@code benchmark/target/bench-full}); {@code --quick} writes everything under {@code benchmark/target/bench-quick}
 * (or {@code --out}), never over the root's report. Exit status: 0 when every invariant held and every phase ran,
 * 1 when an invariant was violated, 2 when a phase could not be measured (or on a usage error).
 */
@Command(name = "bench", mixinStandardHelpOptions = true, version = "onejob 0.1.0", sortOptions = false,
        header = "Measures onejob beside pgbench, Kafka's producer benchmark and DBOS Transact.",
        description = {"Measures onejob beside its references (pgbench, Kafka's producer benchmark, DBOS Transact)"
                + " in one run and writes the report: the full run BENCHMARKS.md and docs/benchmarks/results.{csv,json}"
                + " at the repository root; --quick everything under benchmark/target/bench-quick (or --out).",
            "Exit status: 0 every invariant held and every phase ran, 1 an invariant was violated, 2 a phase could"
                    + " not be measured, or a usage error."})
public final class BenchCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "A short run with small loads, to see that every phase works.")
    boolean quick;

    @Option(names = "--out", paramLabel = "DIR", description = "Write the report and the work files here.")
    Path out;

    @Override
    public Integer call() {
        return run(root(), quick, out == null ? null : out.toAbsolutePath());
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
