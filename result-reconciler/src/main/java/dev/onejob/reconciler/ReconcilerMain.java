package dev.onejob.reconciler;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Providers;
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
        try {
            config = ReconcilerConfig.fromEnv(System.getenv());
            providers = Providers.load(config.providersFile(), System.getenv());
        } catch (IllegalArgumentException | ConfigException e) {
            System.err.println("result-reconciler: " + e.getMessage());
            System.exit(2);
            return;
        }
        Database database = Database.connect(config.database(), "result-reconciler");
        Database.migrate(database.dataSource());
        KafkaTopics.ensure(config.kafka().bootstrapServers(), KafkaTopics.allNames(), 3, (short) 1);
        ResultReconciler reconciler = new ResultReconciler(config, database,
                ResultReconciler.configuredProviders(providers));
        reconciler.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            reconciler.close();
            database.close();
            stopped.countDown();
        }, "reconciler-shutdown"));
        stopped.await();
    }
}
