package dev.onejob.core.service;

import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.KafkaConfig;

/** What every service's configuration record holds, so {@link ServiceMain} can connect before the service starts. */
public interface ServiceConfig {
    DatabaseConfig database();

    KafkaConfig kafka();
}
