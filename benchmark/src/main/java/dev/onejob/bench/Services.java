package dev.onejob.bench;

import dev.onejob.bench.proc.ResourceMonitor;
import dev.onejob.core.config.Env;
import dev.onejob.infra.RunFiles;
import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import dev.onejob.stack.Role;
import dev.onejob.stack.ServiceEnv;
import dev.onejob.stack.ServiceProcesses;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The processes under test, each alone as in docs/operations.md, on the stack kit ({@link ServiceProcesses}): two
 * provider simulators ({@code primary}, which hangs on the timeout run's marker, and {@code backup}), the ingest
 * service (HTTP API, job-requests consumer, outbox relay), one attempt worker and the result reconciler (more of
 * each while the scaling phase runs), configured by environment variables as documented. Every JVM runs with
 * default heap settings plus a GC log (for the peak heap) and is tracked by the resource monitor; a service that
 * exits during startup (on this shared machine, mostly "too many clients" from PostgreSQL while other builds run) is
 * started again, up to three times, and each such restart is noted in the report's settings.
 */
final class Services implements AutoCloseable {
    static final String HANG_MARKER = "[[bench-hang]]";
    static final long HANG_MS = 3_000;
    private static final String INGEST = "ingest-service";
    private static final String WORKER = "attempt-worker";
    private static final String RECONCILER = "result-reconciler";
    private static final Pattern STARTED_URL = Pattern.compile("event=started .*url=(http://\\S+)");
    private static final Pattern INGEST_STARTED = Pattern.compile("event=started service=ingest-service http=http://[^:]+:(\\d+)");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final ProcessRunner runner;
    private final ResourceMonitor monitor;
    private final RunFiles files;
    private final BenchDatabase database;
    private final String bootstrapServers;
    private final ServiceProcesses processes;
    private final List<String> restarts = new ArrayList<>();
    /** Workers and reconcilers beyond the first, while the scaling phase runs them. */
    private int extraWorkers;
    private int extraReconcilers;
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
        this.processes = new ServiceProcesses(runner, new ServiceProcesses.Options(START_TIMEOUT, 3,
                Duration.ofSeconds(3), false), this::serviceEnv, this::serviceJvmArgs, new ServiceProcesses.Events() {
                    @Override
                    public void launched(ChildProcess process) {
                        track(process);
                    }

                    @Override
                    public void restarting(String name, ChildProcess exited, IllegalStateException failure) {
                        restarts.add(name + " exited during startup and was started again: "
                                + failure.getMessage().lines().filter(l -> l.contains("Exception")
                                        || l.contains("FATAL")).findFirst().orElse("").trim());
                    }
                });
        processes.add(INGEST, Role.INGEST);
        processes.add(WORKER, Role.WORKER);
        processes.add(RECONCILER, Role.RECONCILER);
    }

    void startSimulators() {
        ChildProcess primary = simulator("sim-primary", "primary", Map.of("BENCH_HANG_MARKER", HANG_MARKER,
                "BENCH_HANG_MS", Long.toString(HANG_MS)));
        ChildProcess backup = simulator("sim-backup", "backup", Map.of());
        primaryUrl = primary.awaitLine(STARTED_URL, START_TIMEOUT).group(1);
        backupUrl = backup.awaitLine(STARTED_URL, START_TIMEOUT).group(1);
    }

    private ChildProcess simulator(String name, String simName, Map<String, String> extra) {
        Map<String, String> env = ServiceEnv.simulator(simName, 0, BenchFiles.API_KEY);
        env.putAll(extra);
        ChildProcess process = runner.java(name, jvmArgs(name), "dev.onejob.bench.sim.BenchSimulatorMain", List.of(),
                env);
        processes.track(name, process);
        track(process);
        return process;
    }

    void startIngest() {
        Matcher port = processes.start(INGEST).awaitLine(INGEST_STARTED, START_TIMEOUT);
        ingestPort = Integer.parseInt(port.group(1));
    }

    /** One after the other: each applies the migrations at start, and PostgreSQL here is shared with other work. */
    void startWorkerAndReconciler() {
        startWorker();
        // Its first rebalance may still run after "started": the end-to-end phase's unrecorded warm-up absorbs it.
        processes.start(RECONCILER);
    }

    /** Starts the attempt worker (again, after {@link #stopWorker}) and waits until it polls. */
    void startWorker() {
        processes.start(WORKER);
    }

    /** Stops the attempt worker (SIGTERM: it drains its calls in flight) and stops tracking it. */
    void stopWorker() {
        stopTracked(WORKER);
    }

    /** The worker's process, or null while it is stopped. */
    ChildProcess worker() {
        return processes.process(WORKER);
    }

    /**
     * Runs {@code workers} attempt workers and {@code reconcilers} result reconcilers (at least one of each, the
     * first being the ones {@link #startWorkerAndReconciler} started): each extra one is its own process with its own
     * instance id, in the same consumer group, started or stopped (SIGTERM: a worker drains its calls) as needed.
     */
    void scaleTo(int workers, int reconcilers) {
        for (; extraWorkers > workers - 1; extraWorkers--) {
            stopTracked(WORKER + "-" + (extraWorkers + 1));
        }
        for (; extraReconcilers > reconcilers - 1; extraReconcilers--) {
            stopTracked(RECONCILER + "-" + (extraReconcilers + 1));
        }
        for (; extraWorkers < workers - 1; extraWorkers++) {
            startExtra(WORKER + "-" + (extraWorkers + 2), Role.WORKER);
        }
        for (; extraReconcilers < reconcilers - 1; extraReconcilers++) {
            startExtra(RECONCILER + "-" + (extraReconcilers + 2), Role.RECONCILER);
        }
    }

    private void startExtra(String name, Role role) {
        processes.add(name, role);
        processes.start(name);
    }

    private void stopTracked(String name) {
        if (processes.process(name) != null) {
            monitor.untrack(name);
            processes.stop(name);
        }
    }

    /** Services that had to be started again, and why. */
    List<String> restarts() {
        return restarts;
    }

    /** Stops ingest, workers and reconcilers (the peer then runs without them); the simulators stay. */
    void stopOnejob() {
        scaleTo(1, 1);
        for (String name : List.of(RECONCILER, WORKER, INGEST)) {
            stopTracked(name);
        }
    }

    /** The kit's variables, this instance's id ({@code bench-ingest}, {@code bench-worker-2}, ...), any free port. */
    private Map<String, String> serviceEnv(String name, Role role) {
        String instance = name.replace(INGEST, "ingest").replace(WORKER, "worker").replace(RECONCILER, "reconciler");
        Map<String, String> env = new HashMap<>(ServiceEnv.of(database.scratch().server(),
                database.name(), bootstrapServers, files,
                ServiceEnv.forRole(role, ServiceEnv.providers(primaryUrl, backupUrl, BenchFiles.API_KEY)),
                "bench-" + instance));
        env.put(Env.HTTP_PORT, "0");
        // The intake phases run with the workers stopped, so attempt-commands' backlog only grows (past 100,000 by
        // the stalled-clients phase): the backlog bound would refuse every submission there and stand in for the
        // intake's own limits. Shedding by queue wait (HTTP_SHED_QUEUE_WAIT) stays on, as in production.
        env.put(Env.HTTP_SHED_BACKLOG, "0");
        if (role == Role.RECONCILER) {
            env.put(Env.STREAMS_STATE_DIR, runner.logs().resolve(name.replace(RECONCILER, "streams")).toString());
        }
        return env;
    }

    /** A service's JVM as deployed ({@link ServiceProcesses#SERVICE_JVM}), with what {@link #jvmArgs} adds. */
    private List<String> serviceJvmArgs(String name) {
        List<String> args = new ArrayList<>(ServiceProcesses.SERVICE_JVM);
        args.addAll(jvmArgs(name));
        return args;
    }

    /**
     * Default heap (the simulators, the peer at its best); a GC log for the peak heap; frame info between safepoints
     * for the flight recordings.
     */
    List<String> jvmArgs(String name) {
        return List.of("-Xlog:gc:file=" + gcLog(name) + ":uptime", "-XX:+UnlockDiagnosticVMOptions",
                "-XX:+DebugNonSafepoints", "-Dsun.net.httpserver.nodelay=true");
    }

    Path gcLog(String name) {
        return runner.logs().resolve(name + "-gc.log");
    }

    private void track(ChildProcess process) {
        monitor.track(process, gcLog(process.name()));
    }

    /** The sum of the first group of {@code pattern} over the reconciler's log lines. */
    long reconcilerLogCount(String pattern) {
        Pattern compiled = Pattern.compile(pattern);
        ChildProcess reconciler = processes.process(RECONCILER);
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
        return processes.process(INGEST);
    }

    /** The onejob service processes running now (for flight recordings). */
    List<ChildProcess> onejobProcesses() {
        List<ChildProcess> running = new ArrayList<>();
        processes.processes().forEach((name, process) -> {
            if (!name.startsWith("sim-") && process.isAlive()) {
                running.add(process);
            }
        });
        return running;
    }

    /** "jar" when the services ran from their runnable jars, else "classpath". */
    String launchMode() {
        return runner.serviceJar("ingest-service") != null ? "runnable jars (<module>/target/*.jar with target/lib)"
                : "main classes on the benchmark's classpath (the service jars were not built)";
    }

    @Override
    public void close() {
        processes.close();
    }
}
