package dev.onejob.ingest;

import dev.onejob.core.outbox.OutboxRelay;
import dev.onejob.core.service.ServiceMain;

/**
 * Runs the ingest service alone ({@link ServiceMain}'s life cycle): config from the environment, migrations, pool,
 * Kafka topics, then the API, the consumer and the relay; stops in reverse on SIGTERM / Ctrl-C; a consumer or relay
 * loop that dies exits 1 so a supervisor restarts the instance.
 */
public final class IngestMain {
    private IngestMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        ServiceMain.run("ingest-service", IngestConfig::fromEnv,
                (config, database, env, onDeadLoop) -> new IngestService(config, database, env, OutboxRelay.Hooks.NONE,
                        onDeadLoop));
    }
}
