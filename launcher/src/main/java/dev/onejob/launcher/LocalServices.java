package dev.onejob.launcher;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.ingest.IngestConfig;
import dev.onejob.ingest.IngestService;
import dev.onejob.ingest.OutboxRelay;
import dev.onejob.reconciler.ReconcilerConfig;
import dev.onejob.reconciler.ResultReconciler;
import dev.onejob.simulator.ProviderSimulator;
import dev.onejob.simulator.SimulatorConfig;
import dev.onejob.worker.AttemptWorker;
import dev.onejob.worker.WorkerConfig;
import dev.onejob.worker.WorkerMetrics;
import dev.onejob.worker.certify.CertificationReport;
import dev.onejob.worker.certify.CertificationRunner;
import dev.onejob.worker.certify.Certifier;
import dev.onejob.worker.provider.ProviderClients;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

    LocalServices(Progress progress) {
        this.progress = progress;
    }

    void start(Map<String, String> baseEnv, Database database, String bootstrapServers) {
        Map<String, String> env = new HashMap<>(baseEnv);
        env.put("KAFKA_BOOTSTRAP_SERVERS", bootstrapServers);
        boolean simulate = Boolean.parseBoolean(baseEnv.getOrDefault("ONEJOB_SIMULATORS",
                Boolean.toString(!baseEnv.containsKey("PROVIDERS_FILE"))));
        if (simulate) {
            startSimulator("primary", "SIM_PRIMARY_URL", "PRIMARY_API_KEY", intEnv(env, "SIM_PRIMARY_PORT", 9001), env);
            startSimulator("backup", "SIM_BACKUP_URL", "BACKUP_API_KEY", intEnv(env, "SIM_BACKUP_PORT", 9002), env);
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
        progress.step("starting ingest-service on port " + config.httpPort());
        ingest = new IngestService(config, database, env, OutboxRelay.Hooks.NONE);
        try {
            ingest.start();
        } catch (IOException e) {
            throw new StartupException("ingest-service cannot listen on port " + config.httpPort() + " ("
                    + e.getMessage() + "): stop what uses it, or set HTTP_PORT");
        }
        started.add(ingest);
    }

    private void startWorker(Map<String, String> env, Database database) {
        progress.step("starting one attempt-worker");
        WorkerConfig config = WorkerConfig.fromEnv(env);
        Providers providers = Providers.load(config.providersFile(), env);
        Contracts contracts = Contracts.load(config.contractsDir());
        ProviderClients clients = ProviderClients.create(ProviderClients.defaultHttpClient(), env);
        AttemptWorker worker = new AttemptWorker(config.kafka(), "dev-worker", new LedgerStore(database), providers,
                contracts, clients, config.maxInFlight(), new WorkerMetrics());
        Thread loop = new Thread(worker, "attempt-worker");
        loop.setDaemon(true);
        loop.start();
        started.add(clients);
        started.add(worker);
    }

    private void startReconciler(Map<String, String> env, Database database) {
        progress.step("starting result-reconciler (Kafka Streams, exactly_once_v2)");
        Map<String, String> reconcilerEnv = new HashMap<>(env);
        // In one process the ingest service's port carries the API; the reconciler's own /metrics stays off.
        reconcilerEnv.putIfAbsent("METRICS_PORT", "-1");
        reconcilerEnv.putIfAbsent("STREAMS_STATE_DIR",
                Path.of(env.getOrDefault("ONEJOB_DATA_DIR", ".onejob")).toAbsolutePath().resolve("streams").toString());
        ReconcilerConfig config = ReconcilerConfig.fromEnv(reconcilerEnv);
        Providers providers = Providers.load(config.providersFile(), env);
        Contracts contracts = Contracts.load(config.contractsDir());
        ResultReconciler reconciler = new ResultReconciler(config, database,
                ResultReconciler.certified(database, contracts, providers, config.certificationMaxAge()));
        reconciler.start();
        started.add(reconciler);
        if (Boolean.parseBoolean(env.getOrDefault("CERTIFY_ON_START", "true"))) {
            certifyAll(database, providers, contracts, env);
        }
    }

    /** Failover only goes to certified providers: the dev stack certifies every pair once at start. */
    private void certifyAll(Database database, Providers providers, Contracts contracts, Map<String, String> env) {
        progress.step("certifying every provider for every contract (CERTIFY_ON_START=false skips this)");
        try (ProviderClients clients = ProviderClients.create(ProviderClients.defaultHttpClient(), env)) {
            List<CertificationReport> reports = new CertificationRunner(new Certifier(clients),
                    new CertificationStore(database), providers, contracts).run(Optional.empty(), Optional.empty());
            for (CertificationReport report : reports) {
                progress.step(report.provider() + " for " + report.contractLabel() + ": "
                        + (report.passed() ? "certified" : "NOT certified (failed: " + failedChecks(report) + ")"));
            }
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
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                System.err.println("stopping " + started.get(i).getClass().getSimpleName() + " failed: " + e);
            }
        }
        started.clear();
    }
}
