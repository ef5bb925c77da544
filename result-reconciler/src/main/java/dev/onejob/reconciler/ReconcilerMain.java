package dev.onejob.reconciler;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.worker.certify.CertificationRunner;
import dev.onejob.worker.certify.Certifier;
import dev.onejob.worker.provider.ProviderClients;
import dev.onejob.core.db.Database;
import dev.onejob.core.kafka.KafkaTopics;
import java.util.concurrent.CountDownLatch;

/** Runs the result reconciler alone, configured by the environment; stops cleanly on SIGTERM / Ctrl-C. */
public final class ReconcilerMain {
    private ReconcilerMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        ReconcilerConfig config;
        Providers providers;
        Contracts contracts;
        try {
            config = ReconcilerConfig.fromEnv(System.getenv());
            providers = Providers.load(config.providersFile(), System.getenv());
            contracts = Contracts.load(config.contractsDir());
        } catch (IllegalArgumentException | ConfigException e) {
            System.err.println("result-reconciler: " + e.getMessage());
            System.exit(2);
            return;
        }
        Database database = Database.connect(config.database(), "result-reconciler");
        Database.migrate(database.dataSource());
        KafkaTopics.ensure(config.kafka().bootstrapServers(), KafkaTopics.allNames(), 3, (short) 1);
        ResultReconciler reconciler = new ResultReconciler(config, database,
                ResultReconciler.certified(database, contracts, providers, config.certificationMaxAge()));
        reconciler.start();
        ProviderClients clients = ProviderClients.create(ProviderClients.defaultHttpClient(), System.getenv());
        if (config.certifyInterval() != null) {
            reconciler.certifyEvery(config.certifyInterval(), new CertificationRunner(new Certifier(clients),
                    new CertificationStore(database), providers, contracts));
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            reconciler.close();
            clients.close();
            database.close();
            stopped.countDown();
        }, "reconciler-shutdown"));
        stopped.await();
    }
}
