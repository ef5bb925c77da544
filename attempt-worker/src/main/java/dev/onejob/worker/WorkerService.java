package dev.onejob.worker;

import dev.onejob.core.certification.CertificationRequests;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.metrics.OpsServer;
import dev.onejob.core.service.Closeables;
import dev.onejob.core.service.Loops;
import dev.onejob.core.service.ServiceMain;
import dev.onejob.providers.ProviderClients;
import dev.onejob.providers.certify.CertificationRunner;
import dev.onejob.core.config.ProviderConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt worker's parts and their life cycle: the provider clients, the {@link AttemptWorker} poll loop, the
 * {@link Certifications} loop (certification requests: the workers alone hold the providers' keys) and,
 * unless {@code METRICS_PORT} is -1, {@code /metrics} and {@code /health}. Run alone by {@link WorkerMain}, or
 * inside {@code ./onejob dev}. Ready while the loop runs and PostgreSQL answers.
 */
public final class WorkerService implements ServiceMain.Service {
    private static final Logger log = LoggerFactory.getLogger(WorkerService.class);

    private final WorkerConfig config;
    private final Database database;
    private final Map<String, String> env;
    private final Loops loops;
    private final WorkerMetrics metrics = new WorkerMetrics();
    private ProviderClients clients;
    private CertificationRunner certifier;
    private OpsServer ops;

    /** {@code env} holds the providers' API keys and resolves the providers file's references. */
    public WorkerService(WorkerConfig config, Database database, Map<String, String> env, Consumer<String> onDeadLoop) {
        this.config = config;
        this.database = database;
        this.env = env;
        this.loops = new Loops(onDeadLoop);
    }

    @Override
    public void start() throws IOException {
        Providers providers = Providers.load(config.providersFile(), env);
        Contracts contracts = Contracts.load(config.contractsDir());
        clients = ProviderClients.create(ProviderClients.defaultHttpClient(), env);
        Duration drain = config.drainTimeout().orElseGet(() -> providers.all().stream()
                .map(ProviderConfig::hardTimeout).max(Duration::compareTo).orElse(Duration.ZERO)
                .plus(Duration.ofSeconds(5)));
        AttemptWorker worker = new AttemptWorker(config.kafka(), config.instanceId(), new Ledger(database),
                providers, contracts, clients, config.maxInFlight(), metrics).drainFor(drain);
        if (config.metricsPort() >= 0) {
            ops = OpsServer.start("0.0.0.0", config.metricsPort(), metrics.registry(), this::notReady);
        }
        certifier = CertificationRunner.over(clients, new CertificationStore(database), providers, contracts);
        loops.start("attempt-worker", worker);
        loops.start("certifications", new Certifications(config.kafka(), config.instanceId(),
                new CertificationRequests(database), this::certify));
        log.info("event=started service=attempt-worker group={} kafka={} providers={} contracts={} max_in_flight={} "
                        + "drain_timeout={} metrics={}", AttemptWorker.GROUP_ID, config.kafka().bootstrapServers(),
                providers.all().size(), contracts.all().size(), config.maxInFlight(), drain,
                ops == null ? "off" : "http://0.0.0.0:" + ops.port());
    }

    /** Runs a certification request's golden calls with this worker's clients, one line per recorded run. */
    private List<String> certify(UUID requestId, Optional<String> provider, Optional<String> contract) {
        return certifier.run(requestId, provider, contract).stream().map(report -> "provider=" + report.provider()
                + " contract=" + report.contractLabel() + " passed=" + report.passed()).toList();
    }

    /**
     * A runner over this worker's clients and files, recording in its database: for a host that certifies in its
     * own process ({@code ./onejob dev} at start). Null before {@link #start()}.
     */
    public CertificationRunner certificationRunner() {
        return certifier;
    }

    /** The port serving /metrics and /health, or -1 when turned off. */
    public int metricsPort() {
        return ops == null ? -1 : ops.port();
    }

    /** Null when ready; otherwise what is wrong (a dead loop first). */
    String notReady() {
        if (loops.dead().isPresent()) {
            return loops.dead().get();
        }
        try (var connection = database.dataSource().getConnection()) {
            return connection.isValid(2) ? null : "PostgreSQL does not answer";
        } catch (Exception e) {
            log.warn("event=readiness_postgres_failed error=\"{}\"", e.toString());
            return "PostgreSQL does not answer";
        }
    }

    /** Stops polling and lets calls in flight finish (bounded by the worker's own drain), then the clients. */
    @Override
    public void close() {
        Closeables.closeInOrder(ops, loops, clients);
    }
}
