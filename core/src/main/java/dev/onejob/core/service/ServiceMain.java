package dev.onejob.core.service;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.db.Database;
import dev.onejob.core.kafka.KafkaTopics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The life cycle every service's {@code main} shares, in this order: load the configuration from the environment
 * or exit 2 with the message (which names the variable and what it allows); connect the pool; apply the
 * migrations; create the topics; start the service (a provider or contract file it refuses, or a port it cannot
 * bind, is exit 2 as well); then run until SIGTERM, which closes the service and then the pool. A loop of the
 * service that dies exits 1 ({@link Loops#EXIT}), so a supervisor restarts the process.
 */
public final class ServiceMain {
    /** Exit status for a configuration the service refuses. */
    public static final int CONFIG_EXIT_STATUS = 2;

    /** A service built from its configuration and pool, not yet started. */
    public interface Service extends AutoCloseable {
        void start() throws IOException;

        @Override
        void close();
    }

    /** Builds the service; {@code env} resolves references in the provider files, {@code onDeadLoop} is the policy. */
    public interface Factory<C extends ServiceConfig> {
        Service create(C config, Database database, Map<String, String> env, Consumer<String> onDeadLoop);
    }

    private ServiceMain() {
    }

    public static <C extends ServiceConfig> void run(String name, Function<Map<String, String>, C> configFromEnv,
                                                     Factory<C> factory) throws InterruptedException {
        AsyncPool.configure();
        Map<String, String> env = System.getenv();
        C config;
        try {
            config = configFromEnv.apply(env);
        } catch (IllegalArgumentException e) {
            refuse(name, e.getMessage());
            return;
        }
        Database database = Database.connect(config.database(), name);
        Database.migrate(database.dataSource());
        try {
            KafkaTopics.ensure(config.kafka(), KafkaTopics.allNames(), KafkaTopics.Layout.fromEnv(env));
        } catch (ConfigException e) {
            database.close();
            refuse(name, e.getMessage());
            return;
        }
        Service service = factory.create(config, database, env, Loops.EXIT);
        try {
            service.start();
        } catch (ConfigException e) {
            service.close();
            database.close();
            refuse(name, e.getMessage());
            return;
        } catch (IOException | UncheckedIOException e) {
            service.close();
            database.close();
            refuse(name, "cannot listen: " + e.getMessage() + " (set its port variable to a free port)");
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            service.close();
            database.close();
            stopped.countDown();
        }, name + "-shutdown"));
        stopped.await();
    }

    private static void refuse(String name, String message) {
        System.err.println(name + ": " + message);
        System.exit(CONFIG_EXIT_STATUS);
    }
}
