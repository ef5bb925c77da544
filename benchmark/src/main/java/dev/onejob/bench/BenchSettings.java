package dev.onejob.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * The loads of one run. {@link #full} takes about 40 minutes on a 2-core machine (it was sized for ten, before its later phases); {@link #quick} for well
 * under two, to keep the benchmark itself from rotting (it runs inside {@code mvn verify}), not to measure anything.
 *
 * @param repeatShare share of requests that repeat an earlier (owner, key, payload): double clicks, redeliveries
 * @param poisonEvery every n-th {@code job-requests} record is not JSON (1% at 100)
 * @param hangEvery   every n-th new job of the timeout run hangs at the primary provider (5% at 20)
 * @param slowRates   the slow-provider phase's offered rates (requests/s), each for {@code slowStepSeconds}
 * @param slowBacklog jobs waiting for the worker when it starts, in the slow-provider phase's backlog run
 * @param overloadSeconds how long the overload phase offers twice the measured HTTP maximum
 * @param stalledConnections connections the slow-client phase holds stalled mid-header
 * @param stallStepSeconds each of the slow-client phase's two open-loop runs (without, then with them)
 * @param scaleJobs   finished jobs the ledger-at-scale phase adds before measuring again
 * @param scaleStepSeconds each of that phase's two submission runs
 * @param usageQueries usage queries that phase times on each ledger
 * @param scalingWarmupRequests unrecorded jobs after each change of the scaling phase (its rebalance)
 * @param scalingRate the scaling phase's offered rate (requests/s, open loop), above what the pipeline finishes
 * @param scalingSeconds how long each configuration is offered that rate
 */
public record BenchSettings(boolean quick, Path root, Path outputDir,
                            int pgbenchSeconds, int casPoolPerRun,
                            int producerRecords,
                            int kafkaWarmupRecords, int kafkaRecords,
                            double httpWarmupSeconds, double httpStepSeconds, List<Integer> httpConcurrency,
                            double httpLatencySeconds,
                            int e2eWarmupRequests, int e2eBurstRequests, int e2eConcurrency, double e2eRateSeconds,
                            int dbosBurstRequests, int dbosConcurrency, double dbosRateSeconds,
                            double repeatShare, int poisonEvery, int hangEvery,
                            List<Double> slowRates, double slowStepSeconds, int slowBacklog,
                            double overloadSeconds, int stalledConnections, double stallStepSeconds,
                            long scaleJobs, double scaleStepSeconds, int usageQueries,
                            int scalingWarmupRequests, double scalingRate, double scalingSeconds) {

    public static BenchSettings full(Path root, Path outputDir) {
        return new BenchSettings(false, root, outputDir, 10, 150_000, 300_000, 1_000, 30_000,
                5, 12, List.of(8, 32, 128), 20,
                400, 3_000, 128, 20,
                3_000, 128, 20,
                0.2, 100, 20,
                List.of(50.0, 100.0, 200.0), 15, 4_000,
                30, 1_000, 20,
                10_000_000, 20, 200,
                200, 400, 20);
    }

    public static BenchSettings quick(Path root, Path outputDir) {
        return new BenchSettings(true, root, outputDir, 1, 5_000, 20_000, 100, 1_000,
                1, 1.5, List.of(8, 32, 128), 2,
                30, 150, 64, 2,
                150, 64, 2,
                0.2, 100, 20,
                List.of(20.0), 2, 100,
                3, 100, 3,
                50_000, 2, 20,
                10, 20, 2);
    }

    public String mode() {
        return quick ? "quick" : "full";
    }
}
