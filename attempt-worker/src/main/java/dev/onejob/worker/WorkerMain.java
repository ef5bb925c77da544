package dev.onejob.worker;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.core.metrics.OpsServer;
import dev.onejob.worker.provider.ProviderClients;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one attempt worker, configured by the environment: config and provider/contract files validated first,
 * then migrations check, pool, Kafka, the poll loop; SIGTERM stops polling and lets calls in flight finish.
 */
public final class WorkerMain {
    private static final Logger log = LoggerFactory.getLogger(WorkerMain.class);

    private WorkerMain() {
    }

    private static String loopAlive(Database database) {
        try (var connection = database.dataSource().getConnection()) {
            return connection.isValid(2) ? null : "PostgreSQL does not answer";
        } catch (Exception e) {
            return "PostgreSQL does not answer: " + e.getMessage();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        WorkerConfig config;
        Providers providers;
        Contracts contracts;
        try {
            config = WorkerConfig.fromEnv(System.getenv());
            providers = Providers.load(config.providersFile(), System.getenv());
            contracts = Contracts.load(config.contractsDir());
        } catch (IllegalArgumentException | ConfigException e) {
            System.err.println("attempt-worker: " + e.getMessage());
            System.exit(2);
            return;
        }
        Database database = Database.connect(config.database(), "attempt-worker");
        Database.migrate(database.dataSource());
        KafkaTopics.ensure(config.kafka().bootstrapServers(), KafkaTopics.allNames(), 3, (short) 1);
        ProviderClients clients = ProviderClients.create(ProviderClients.defaultHttpClient(), System.getenv());
        WorkerMetrics metrics = new WorkerMetrics();
        AttemptWorker worker = new AttemptWorker(config.kafka(), config.instanceId(), new LedgerStore(database),
                providers, contracts, clients, config.maxInFlight(), metrics);
        OpsServer ops;
        try {
            ops = config.metricsPort() < 0 ? null : OpsServer.start("0.0.0.0", config.metricsPort(), metrics.registry(),
                    () -> loopAlive(database));
        } catch (java.io.IOException e) {
            System.err.println("attempt-worker: cannot serve /metrics on port " + config.metricsPort() + ": "
                    + e.getMessage() + " (set METRICS_PORT, or -1 to turn it off)");
            System.exit(2);
            return;
        }
        Thread loop = new Thread(worker, "attempt-worker");
        // A worker whose consumer loop died would stay up and consume nothing: exit, so a supervisor restarts it.
        loop.setUncaughtExceptionHandler((thread, error) -> {
            log.error("event=worker_loop_died error=\"{}\" action=exit", error.toString());
            System.exit(1);
        });
        loop.start();
        log.info("event=started service=attempt-worker group={} kafka={} providers={} contracts={} max_in_flight={} "
                        + "metrics={}", AttemptWorker.GROUP_ID, config.kafka().bootstrapServers(), providers.all().size(),
                contracts.all().size(), config.maxInFlight(), ops == null ? "off" : "http://0.0.0.0:" + ops.port());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (ops != null) {
                ops.close();
            }
            worker.close();
            clients.close();
            database.close();
            stopped.countDown();
        }, "worker-shutdown"));
        stopped.await();
    }
}
