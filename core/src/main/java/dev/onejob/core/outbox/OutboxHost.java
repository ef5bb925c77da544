package dev.onejob.core.outbox;

import dev.onejob.core.db.Database;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.service.Loops;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;

/**
 * Hosts a service's share of the outbox: starts its {@link OutboxRelay} and, unless the retention is zero, its
 * {@link OutboxPruner}, as loops of the service's {@link Loops}, which stop them with the service's other loops in
 * reverse order (so a relay started first stops last and publishes what the others wrote).
 */
public final class OutboxHost {
    private OutboxHost() {
    }

    /**
     * Starts the relay (client id {@code instanceId-relay}, the default lease) and the pruner on {@code loops}.
     *
     * @param retention how long published rows are kept; zero runs no pruner
     */
    public static void start(Loops loops, Database database, KafkaConfig kafka,
                             String instanceId, MeterRegistry metrics, OutboxRelay.Hooks hooks, Duration retention) {
        loops.start("outbox-relay", new OutboxRelay(database, kafka, instanceId + "-relay", metrics,
                hooks, OutboxRelay.DEFAULT_LEASE));
        if (!retention.isZero()) {
            loops.start("outbox-pruner", new OutboxPruner(database, retention));
        }
    }
}
