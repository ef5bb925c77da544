package dev.onejob.ingest;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.db.Database;
import dev.onejob.core.kafka.KafkaTopics;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the ingest service alone: config from the environment, migrations, pool, Kafka topics, then the API, the
 * consumer and the relay; stops in reverse on SIGTERM / Ctrl-C.
 */
public final class IngestMain {
    private IngestMain() {
    }

    public static void main(String[] args) throws Exception {
        IngestConfig config;
        try {
            config = IngestConfig.fromEnv(System.getenv());
        } catch (IllegalArgumentException | ConfigException e) {
            System.err.println("ingest-service: " + e.getMessage());
            System.exit(2);
            return;
        }
        Database database = Database.connect(config.database(), "ingest-service");
        Database.migrate(database.dataSource());
        KafkaTopics.ensure(config.kafka().bootstrapServers(), KafkaTopics.allNames(), 3, (short) 1);
        IngestService service = new IngestService(config, database, System.getenv(), OutboxRelay.Hooks.NONE);
        try {
            service.start();
        } catch (ConfigException e) {
            System.err.println("ingest-service: " + e.getMessage());
            database.close();
            System.exit(2);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            service.close();
            database.close();
            stopped.countDown();
        }, "ingest-shutdown"));
        stopped.await();
    }
}
