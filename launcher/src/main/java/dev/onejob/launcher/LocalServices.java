package dev.onejob.launcher;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Env;
import dev.onejob.core.config.Settings;
import dev.onejob.core.db.Database;
import dev.onejob.core.outbox.OutboxRelay;
import dev.onejob.core.service.Closeables;
import dev.onejob.core.service.ServiceMain;
import dev.onejob.ingest.IngestConfig;
import dev.onejob.ingest.IngestService;
import dev.onejob.providers.certify.CertificationReport;
import dev.onejob.providers.certify.CertificationRunner;
import dev.onejob.reconciler.ReconcilerConfig;
import dev.onejob.reconciler.ReconcilerService;
import dev.onejob.simulator.ProviderSimulator;
import dev.onejob.simulator.SimulatorConfig;
import dev.onejob.stack.ServiceEnv;
import dev.onejob.worker.WorkerConfig;
import dev.onejob.worker.WorkerService;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The pipeline's services in one process, on the local stack's database and broker: the provider simulator as
 * {@code primary} and {@code backup} (unless {@code PROVIDERS_FILE} names real providers; {@code ONEJOB_SIMULATORS}
 * forces either way), the ingest service,
 * one attempt worker and the result reconciler. Started in that order, closed in reverse.
 */
final class LocalServices implements AutoCloseable {
    static final String DEV_API_KEY = "sk-onejob-dev-local";

    private final Progress progress;
    private final List<AutoCloseable> started = new ArrayList<>();
    private final Map<String, ProviderSimulator> simulators = new HashMap<>();
    private IngestService ingest;

    private final Consumer<String> onDeadLoop;

    /** {@code onDeadLoop}: what a service's dead loop does to this process ({@code ./onejob dev} exits 1). */
    LocalServices(Progress progress, Consumer<String> onDeadLoop) {
        this.progress = progress;
        this.onDeadLoop = onDeadLoop;
    }

    void start(Map<String, String> baseEnv, Database database, String bootstrapServers) {
        Map<String, String> env = new HashMap<>(baseEnv);
        env.put(Env.KAFKA_BOOTSTRAP_SERVERS, bootstrapServers);
        boolean simulate = Boolean.parseBoolean(baseEnv.getOrDefault(Env.ONEJOB_SIMULATORS,
                Boolean.toString(!baseEnv.containsKey(Env.PROVIDERS_FILE))));
        if (simulate) {
            startSimulator("primary", ServiceEnv.SIM_PRIMARY_URL, ServiceEnv.PRIMARY_API_KEY,
                    intEnv(env, Env.SIM_PRIMARY_PORT, 9001), env);
            startSimulator("backup", ServiceEnv.SIM_BACKUP_URL, ServiceEnv.BACKUP_API_KEY,
                    intEnv(env, Env.SIM_BACKUP_PORT, 9002), env);
        }
        try {
            startIngest(env, database);
            startWorker(env, database);
            startReconciler(env, database);
        } catch (ConfigException e) {
            throw new StartupException(e.getMessage());
        }
    }

    private void startSimulator(String name, String urlVariable, String keyVariable, int port, Map<String, String> env) {
        progress.step("starting the provider simulator '" + name + "' on port " + port);
        env.putIfAbsent(keyVariable, DEV_API_KEY);
        try {
            ProviderSimulator simulator = ProviderSimulator.start(SimulatorConfig.defaults().withName(name)
                    .withPort(port).withApiKey(env.get(keyVariable)));
            simulators.put(name, simulator);
            started.add(simulator);
            env.put(urlVariable, simulator.baseUrl());
        } catch (IOException e) {
            throw new StartupException("the provider simulator '" + name + "' cannot listen on port " + port + " ("
                    + e.getMessage() + "): stop what uses it, or set SIM_" + name.toUpperCase() + "_PORT");
        }
    }

    private void startIngest(Map<String, String> env, Database database) {
        IngestConfig config = IngestConfig.fromEnv(env);
        progress.step("starting ingest-service on port " + config.http().port());
        ingest = new IngestService(config, database, env, OutboxRelay.Hooks.NONE, onDeadLoop);
        start(ingest, "ingest-service cannot listen on port " + config.http().port(), Env.HTTP_PORT);
    }

    private void startWorker(Map<String, String> env, Database database) {
        progress.step("starting one attempt-worker");
        Map<String, String> workerEnv = new HashMap<>(env);
        // In one process the ingest service's port carries the API; the worker's own /metrics stays off.
        workerEnv.putIfAbsent(Env.METRICS_PORT, "-1");
        workerEnv.putIfAbsent(Env.INSTANCE_ID, "dev-worker");
        WorkerService worker = new WorkerService(WorkerConfig.fromEnv(workerEnv), database, workerEnv, onDeadLoop);
        start(worker, "attempt-worker cannot serve /metrics", Env.METRICS_PORT);
        if (Settings.of(env).flag(Env.CERTIFY_ON_START, true)) {
            // In this one process, with the worker's own clients: the stack is not serving jobs yet.
            certifyAll(worker.certificationRunner());
        }
    }

    private void startReconciler(Map<String, String> env, Database database) {
        progress.step("starting result-reconciler (Kafka Streams, exactly_once_v2)");
        Map<String, String> reconcilerEnv = new HashMap<>(env);
        reconcilerEnv.putIfAbsent(Env.METRICS_PORT, "-1");
        reconcilerEnv.putIfAbsent(Env.STREAMS_STATE_DIR, Path.of(env.getOrDefault(Env.ONEJOB_DATA_DIR, ".onejob"))
                .toAbsolutePath().resolve("streams").toString());
        ReconcilerService reconciler = new ReconcilerService(ReconcilerConfig.fromEnv(reconcilerEnv), database,
                reconcilerEnv, onDeadLoop);
        start(reconciler, "result-reconciler cannot serve /metrics", Env.METRICS_PORT);
    }

    private void start(ServiceMain.Service service, String cannotListen, String portVariable) {
        try {
            service.start();
        } catch (IOException e) {
            service.close();
            throw new StartupException(cannotListen + " (" + e.getMessage() + "): stop what uses it, or set "
                    + portVariable);
        }
        started.add(service);
    }

    /** Failover only goes to certified providers: the dev stack certifies every pair once at start. */
    private void certifyAll(CertificationRunner runner) {
        progress.step("certifying every provider for every contract (CERTIFY_ON_START=false skips this)");
        List<CertificationReport> reports = runner.run(Optional.empty(), Optional.empty());
        for (CertificationReport report : reports) {
            progress.step(report.provider() + " for " + report.contractLabel() + ": "
                    + (report.passed() ? "certified" : "NOT certified (failed: " + failedChecks(report) + ")"));
        }
    }

    private static String failedChecks(CertificationReport report) {
        return String.join(", ", report.checks().stream().filter(c -> !c.passed()).map(c -> c.name()).toList());
    }

    int httpPort() {
        return ingest.httpPort();
    }

    Map<String, ProviderSimulator> simulators() {
        return simulators;
    }

    private static int intEnv(Map<String, String> env, String name, int fallback) {
        String value = env.get(name);
        try {
            return value == null ? fallback : Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new StartupException(name + " must be a port number, got '" + value + "'");
        }
    }

    @Override
    public void close() {
        Closeables.closeEachInReverse(started,
                (part, e) -> System.err.println("stopping " + part.getClass().getSimpleName() + " failed: " + e));
        started.clear();
    }
}
