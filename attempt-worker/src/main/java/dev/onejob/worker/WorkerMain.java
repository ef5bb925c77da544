package dev.onejob.worker;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.ledger.LedgerStore;
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
        AttemptWorker worker = new AttemptWorker(config.kafka(), config.instanceId(), new LedgerStore(database),
                providers, contracts, clients, config.maxInFlight());
        Thread loop = new Thread(worker, "attempt-worker");
        loop.start();
        log.info("event=started service=attempt-worker group={} kafka={} providers={} contracts={} max_in_flight={}",
                AttemptWorker.GROUP_ID, config.kafka().bootstrapServers(), providers.all().size(),
                contracts.all().size(), config.maxInFlight());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            worker.close();
            clients.close();
            database.close();
            stopped.countDown();
        }, "worker-shutdown"));
        stopped.await();
    }
}
