package dev.onejob.bench;

import dev.onejob.core.config.Env;
import dev.onejob.infra.RunFiles;
import dev.onejob.infra.ServiceEnv;
import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import dev.onejob.bench.proc.ResourceMonitor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The processes under test, each alone as in docs/operations.md: two provider simulators ({@code primary}, which
 * hangs on the timeout run's marker, and {@code backup}), the ingest service (HTTP API, job-requests consumer, outbox
 * relay), one attempt worker and the result reconciler, configured by environment variables as documented. Every
 * JVM runs with default heap settings plus a GC log (for the peak heap) and is tracked by the resource monitor.
 */
final class Services implements AutoCloseable {
    static final String HANG_MARKER = "[[bench-hang]]";
    static final long HANG_MS = 3_000;
    private static final Pattern STARTED_URL = Pattern.compile("event=started .*url=(http://\\S+)");
    private static final Pattern INGEST_STARTED = Pattern.compile("event=started service=ingest-service http=http://[^:]+:(\\d+)");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final ProcessRunner runner;
    private final ResourceMonitor monitor;
    private final RunFiles files;
    private final BenchDatabase database;
    private final String bootstrapServers;
    private final List<ChildProcess> started = new ArrayList<>();
    private final List<String> restarts = new ArrayList<>();
    private ChildProcess ingest;
    private ChildProcess worker;
    private ChildProcess reconciler;
    /** Workers and reconcilers beyond the first, while the scaling phase runs them. */
    private final List<ChildProcess> extraWorkers = new ArrayList<>();
    private final List<ChildProcess> extraReconcilers = new ArrayList<>();
    private String primaryUrl;
    private String backupUrl;
    private int ingestPort;

    Services(ProcessRunner runner, ResourceMonitor monitor, RunFiles files, BenchDatabase database,
             String bootstrapServers) {
        this.runner = runner;
        this.monitor = monitor;
        this.files = files;
        this.database = database;
        this.bootstrapServers = bootstrapServers;
    }

    void startSimulators() {
        ChildProcess primary = simulator("sim-primary", "primary", Map.of("BENCH_HANG_MARKER", HANG_MARKER,
                "BENCH_HANG_MS", Long.toString(HANG_MS)));
        ChildProcess backup = simulator("sim-backup", "backup", Map.of());
        primaryUrl = primary.awaitLine(STARTED_URL, START_TIMEOUT).group(1);
        backupUrl = backup.awaitLine(STARTED_URL, START_TIMEOUT).group(1);
    }

    private ChildProcess simulator(String name, String simName, Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(extra);
        env.put("SIM_PORT", "0");
        env.put("SIM_NAME", simName);
        env.put("SIM_API_KEY", BenchFiles.API_KEY);
        ChildProcess process = runner.java(name, jvmArgs(name), "dev.onejob.bench.sim.BenchSimulatorMain", List.of(),
                env);
        track(process);
        return process;
    }

    void startIngest() {
        ingest = launch("ingest-service", () -> runner.service("ingest-service", "ingest-service",
                "dev.onejob.ingest.IngestMain", jvmArgs("ingest-service"), serviceEnv("ingest")), INGEST_STARTED);
        Matcher port = ingest.awaitLine(INGEST_STARTED, START_TIMEOUT);
        ingestPort = Integer.parseInt(port.group(1));
    }

    /** One after the other: each applies the migrations at start, and PostgreSQL here is shared with other work. */
    void startWorkerAndReconciler() {
        startWorker();
        Map<String, String> reconcilerEnv = serviceEnv("reconciler");
        reconcilerEnv.put("STREAMS_STATE_DIR", runner.logs().resolve("streams").toString());
        // Its first rebalance may still run after "started": the end-to-end phase's unrecorded warm-up absorbs it.
        reconciler = launch("result-reconciler", () -> runner.service("result-reconciler", "result-reconciler",
                "dev.onejob.reconciler.ReconcilerMain", jvmArgs("result-reconciler"), reconcilerEnv),
                Pattern.compile("event=started service=result-reconciler"));
    }

    /** Starts the attempt worker (again, after {@link #stopWorker}) and waits until it polls. */
    void startWorker() {
        worker = launch("attempt-worker", () -> runner.service("attempt-worker", "attempt-worker",
                "dev.onejob.worker.WorkerMain", jvmArgs("attempt-worker"), serviceEnv("worker")),
                Pattern.compile("event=started service=attempt-worker"));
    }

    /** Stops the attempt worker (SIGTERM: it drains its calls in flight) and stops tracking it. */
    void stopWorker() {
        if (worker != null) {
            monitor.untrack(worker.name());
            worker.close();
            worker = null;
        }
    }

    /** The worker's process, or null while it is stopped. */
    ChildProcess worker() {
        return worker;
    }

    /**
     * Starts a service and waits until it is ready; a service that exits during startup (on this shared machine,
     * mostly "too many clients" from PostgreSQL while other builds run) is started again, up to three times, and
     * each such restart is noted in the report's settings.
     */
    private ChildProcess launch(String name, java.util.function.Supplier<ChildProcess> start, Pattern ready) {
        for (int attempt = 1; ; attempt++) {
            ChildProcess process = start.get();
            track(process);
            try {
                process.awaitLine(ready, START_TIMEOUT);
                return process;
            } catch (IllegalStateException e) {
                if (process.isAlive() || attempt == 3) {
                    throw e;
                }
                restarts.add(name + " exited during startup and was started again: "
                        + e.getMessage().lines().filter(l -> l.contains("Exception") || l.contains("FATAL"))
                        .findFirst().orElse("").trim());
                process.close();
                try {
                    Thread.sleep(3_000);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /**
     * Runs {@code workers} attempt workers and {@code reconcilers} result reconcilers (at least one of each, the
     * first being the ones {@link #startWorkerAndReconciler} started): each extra one is its own process with its own
     * instance id, in the same consumer group, started or stopped (SIGTERM: a worker drains its calls) as needed.
     */
    void scaleTo(int workers, int reconcilers) {
        while (extraWorkers.size() > workers - 1) {
            stopTracked(extraWorkers.remove(extraWorkers.size() - 1));
        }
        while (extraReconcilers.size() > reconcilers - 1) {
            stopTracked(extraReconcilers.remove(extraReconcilers.size() - 1));
        }
        while (extraWorkers.size() < workers - 1) {
            int number = extraWorkers.size() + 2;
            String name = "attempt-worker-" + number;
            Map<String, String> env = serviceEnv("worker-" + number);
            extraWorkers.add(launch(name, () -> runner.service(name, "attempt-worker", "dev.onejob.worker.WorkerMain",
                    jvmArgs(name), env), Pattern.compile("event=started service=attempt-worker")));
        }
        while (extraReconcilers.size() < reconcilers - 1) {
            int number = extraReconcilers.size() + 2;
            String name = "result-reconciler-" + number;
            Map<String, String> env = serviceEnv("reconciler-" + number);
            env.put("STREAMS_STATE_DIR", runner.logs().resolve("streams-" + number).toString());
            extraReconcilers.add(launch(name, () -> runner.service(name, "result-reconciler",
                    "dev.onejob.reconciler.ReconcilerMain", jvmArgs(name), env),
                    Pattern.compile("event=started service=result-reconciler")));
        }
    }

    private void stopTracked(ChildProcess process) {
        monitor.untrack(process.name());
        process.close();
    }

    /** Services that had to be started again, and why. */
    List<String> restarts() {
        return restarts;
    }

    /** Stops ingest, workers and reconcilers (the peer then runs without them); the simulators stay. */
    void stopOnejob() {
        scaleTo(1, 1);
        for (ChildProcess process : java.util.Arrays.asList(reconciler, worker, ingest)) {
            if (process != null) {
                monitor.untrack(process.name());
                process.close();
            }
        }
    }

    private Map<String, String> serviceEnv(String instance) {
        Map<String, String> env = new HashMap<>(ServiceEnv.of(database.scratch().server(),
                database.name(), bootstrapServers, files,
                ServiceEnv.providers(primaryUrl, backupUrl, BenchFiles.API_KEY), "bench-" + instance));
        env.put(Env.HTTP_PORT, "0");
        return env;
    }

    /** Default heap; a GC log for the peak heap; frame info between safepoints for the flight recordings. */
    List<String> jvmArgs(String name) {
        return List.of("-Xlog:gc:file=" + gcLog(name) + ":uptime", "-XX:+UnlockDiagnosticVMOptions",
                "-XX:+DebugNonSafepoints", "-Dsun.net.httpserver.nodelay=true");
    }

    Path gcLog(String name) {
        return runner.logs().resolve(name + "-gc.log");
    }

    private void track(ChildProcess process) {
        started.add(process);
        monitor.track(process, gcLog(process.name()));
    }

    /** The sum of the first group of {@code pattern} over the reconciler's log lines. */
    long reconcilerLogCount(String pattern) {
        Pattern compiled = Pattern.compile(pattern);
        long sum = 0;
        for (String line : reconciler == null ? List.<String>of() : reconciler.lines()) {
            Matcher matcher = compiled.matcher(line);
            if (matcher.find()) {
                sum += Long.parseLong(matcher.group(1));
            }
        }
        return sum;
    }

    int ingestPort() {
        return ingestPort;
    }

    String primaryUrl() {
        return primaryUrl;
    }

    String backupUrl() {
        return backupUrl;
    }

    ChildProcess ingest() {
        return ingest;
    }

    /** The onejob service processes running now (for flight recordings). */
    List<ChildProcess> onejobProcesses() {
        List<ChildProcess> running = new ArrayList<>();
        for (ChildProcess process : new ChildProcess[] {ingest, worker, reconciler}) {
            if (process != null && process.isAlive()) {
                running.add(process);
            }
        }
        for (ChildProcess process : extraWorkers) {
            running.add(process);
        }
        for (ChildProcess process : extraReconcilers) {
            running.add(process);
        }
        return running;
    }

    /** "jar" when the services ran from their runnable jars, else "classpath". */
    String launchMode() {
        return runner.serviceJar("ingest-service") != null ? "runnable jars (<module>/target/*.jar with target/lib)"
                : "main classes on the benchmark's classpath (the service jars were not built)";
    }

    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }
}
