package dev.onejob.ingest;

import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.core.certification.CertificationGate;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.worker.certify.CertificationRunner;
import dev.onejob.worker.certify.Certifier;
import dev.onejob.worker.provider.ProviderClients;
import dev.onejob.ingest.http.ApiServer;
import dev.onejob.ingest.kafka.JobRequestConsumer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ingest service's parts and their life cycle: the HTTP API, the {@code job-requests} consumer and the outbox
 * relay, over one database pool. {@link #start()} brings them up in order; {@link #close()} stops them in reverse.
 */
public final class IngestService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(IngestService.class);

    private final IngestConfig config;
    private final Database database;
    private final OutboxRelay.Hooks relayHooks;
    private final IngestMetrics metrics = new IngestMetrics();
    private final List<Thread> threads = new ArrayList<>();
    private final List<AutoCloseable> parts = new ArrayList<>();
    private final AtomicReference<String> stoppedPart = new AtomicReference<>();
    private ApiServer api;
    private ProviderClients clients;
    private Admin admin;

    private final Map<String, String> env;

    /** {@code env} resolves {@code ${VAR}} references in the providers file. */
    public IngestService(IngestConfig config, Database database, Map<String, String> env,
                         OutboxRelay.Hooks relayHooks) {
        this.config = config;
        this.database = database;
        this.env = env;
        this.relayHooks = relayHooks;
    }

    public void start() throws IOException {
        Contracts contracts = Contracts.load(config.contractsDir());
        Providers providers = Providers.load(config.providersFile(), env);
        Tokens tokens = Tokens.load(config.tokensFile());
        LedgerStore ledger = new LedgerStore(database);
        JobRequests requests = new JobRequests(contracts, providers);
        KafkaConfig kafka = config.kafka();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));

        JobRequestConsumer consumer = new JobRequestConsumer(kafka, config.instanceId(), ledger, requests, metrics);
        startThread("job-requests-consumer", consumer);
        if (config.relay()) {
            OutboxRelay relay = new OutboxRelay(database, config.database(), kafka, config.instanceId() + "-relay",
                    metrics, relayHooks, OutboxRelay.DEFAULT_LEASE);
            startThread("outbox-relay", relay);
        }
        CertificationStore certifications = new CertificationStore(database);
        CertificationGate gate = new CertificationGate(certifications, contracts, providers);
        clients = ProviderClients.create(ProviderClients.defaultHttpClient(), env);
        CertificationRunner certifier = new CertificationRunner(new Certifier(clients), certifications, providers,
                contracts);
        api = new ApiServer(new InetSocketAddress(config.httpHost(), config.httpPort()), ledger, requests, gate,
                certifier, certifications, tokens, metrics, this::notReady, config.maxBodyBytes(),
                config.httpThreads(), config.submissionsPerOwnerPerSecond());
        api.start();
        log.info("event=started service=ingest-service http=http://{}:{} kafka={} group={} relay={} contracts={} "
                        + "providers={}", config.httpHost(), api.port(), kafka.bootstrapServers(),
                JobRequestConsumer.GROUP_ID, config.relay(), contracts.all().size(), providers.all().size());
    }

    public int httpPort() {
        return api.port();
    }

    private void startThread(String name, Runnable part) {
        Thread thread = new Thread(part, name);
        thread.setDaemon(true);
        thread.setUncaughtExceptionHandler(recordingStop(stoppedPart));
        thread.start();
        threads.add(thread);
        parts.add((AutoCloseable) part);
    }

    /**
     * Records the first part thread that died, so {@code /health} says so (503) and a supervisor restarts the
     * instance: a dead consumer or relay would otherwise leave the HTTP API up with nothing behind it.
     */
    static Thread.UncaughtExceptionHandler recordingStop(AtomicReference<String> stopped) {
        return (thread, error) -> {
            stopped.compareAndSet(null, "the " + thread.getName() + " thread stopped (" + error + "); restart this "
                    + "instance");
            log.error("event=part_stopped part={} error=\"{}\" action=report_not_ready", thread.getName(),
                    error.toString(), error);
        };
    }

    /** Ready when every part runs and PostgreSQL and Kafka both answer; otherwise what is wrong. */
    private String notReady() {
        if (stoppedPart.get() != null) {
            return stoppedPart.get();
        }
        try (Connection connection = database.dataSource().getConnection()) {
            if (!connection.isValid(2)) {
                return "PostgreSQL does not answer";
            }
        } catch (Exception e) {
            return "PostgreSQL does not answer: " + e.getMessage();
        }
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs(2000)).clusterId().get(3, TimeUnit.SECONDS);
        } catch (Exception e) {
            return "Kafka does not answer at " + config.kafka().bootstrapServers();
        }
        return null;
    }

    @Override
    public void close() {
        if (api != null) {
            api.close();
        }
        for (int i = parts.size() - 1; i >= 0; i--) {
            try {
                parts.get(i).close();
            } catch (Exception e) {
                log.warn("event=stop_failed part={} error={}", parts.get(i).getClass().getSimpleName(), e.toString());
            }
        }
        for (Thread thread : threads) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (admin != null) {
            admin.close();
        }
        if (clients != null) {
            clients.close();
        }
    }
}
