package dev.onejob.ingest;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Env;
import dev.onejob.core.config.InstanceIds;
import dev.onejob.core.config.Settings;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.http.PemTls;
import dev.onejob.core.http.WebServer;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.ledger.KeyRetention;
import dev.onejob.core.outbox.OutboxPruner;
import dev.onejob.core.service.ServiceConfig;
import dev.onejob.ingest.http.FrontDoor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The ingest service's configuration, from the environment, with defaults that work on a fresh machine
 * (docs/configuration.md). A bad value fails startup with a message naming the variable and its range.
 */
public record IngestConfig(DatabaseConfig database, KafkaConfig kafka, WebServer.Settings http, int maxBodyBytes,
                           Path tokensFile, Path providersFile, Path contractsDir, boolean relay,
                           Duration outboxRetention, String instanceId, FrontDoor frontDoor, Path ownersFile,
                           Duration archiveAfter, Duration retentionEvery, Path principalsFile,
                           Duration certifyWait)
        implements ServiceConfig {
    /** How long {@code POST /v1/certifications} waits for a worker to finish the request before it answers 202. */
    public static final Duration DEFAULT_CERTIFY_WAIT = Duration.ofMinutes(5);

    /** Waiting {@link #DEFAULT_CERTIFY_WAIT} for certifications. */
    public IngestConfig(DatabaseConfig database, KafkaConfig kafka, WebServer.Settings http, int maxBodyBytes,
                        Path tokensFile, Path providersFile, Path contractsDir, boolean relay,
                        Duration outboxRetention, String instanceId, FrontDoor frontDoor, Path ownersFile,
                        Duration archiveAfter, Duration retentionEvery, Path principalsFile) {
        this(database, kafka, http, maxBodyBytes, tokensFile, providersFile, contractsDir, relay, outboxRetention,
                instanceId, frontDoor, ownersFile, archiveAfter, retentionEvery, principalsFile, DEFAULT_CERTIFY_WAIT);
    }

    /** No principals file: owners of Kafka job requests come from the records (one trusted broker). */
    public IngestConfig(DatabaseConfig database, KafkaConfig kafka, WebServer.Settings http, int maxBodyBytes,
                        Path tokensFile, Path providersFile, Path contractsDir, boolean relay,
                        Duration outboxRetention, String instanceId, FrontDoor frontDoor, Path ownersFile,
                        Duration archiveAfter, Duration retentionEvery) {
        this(database, kafka, http, maxBodyBytes, tokensFile, providersFile, contractsDir, relay, outboxRetention,
                instanceId, frontDoor, ownersFile, archiveAfter, retentionEvery, null);
    }

    /** With an owners file, archiving nothing (keys are held as long as their jobs are live). */
    public IngestConfig(DatabaseConfig database, KafkaConfig kafka, WebServer.Settings http, int maxBodyBytes,
                        Path tokensFile, Path providersFile, Path contractsDir, boolean relay,
                        Duration outboxRetention, String instanceId, FrontDoor frontDoor, Path ownersFile) {
        this(database, kafka, http, maxBodyBytes, tokensFile, providersFile, contractsDir, relay, outboxRetention,
                instanceId, frontDoor, ownersFile, Duration.ZERO, KeyRetention.DEFAULT_EVERY);
    }

    /** Without an owners file: no owner is limited, keys are kept the default retention. */
    public IngestConfig(DatabaseConfig database, KafkaConfig kafka, WebServer.Settings http, int maxBodyBytes,
                        Path tokensFile, Path providersFile, Path contractsDir, boolean relay,
                        Duration outboxRetention, String instanceId, FrontDoor frontDoor) {
        this(database, kafka, http, maxBodyBytes, tokensFile, providersFile, contractsDir, relay, outboxRetention,
                instanceId, frontDoor, null);
    }

    public static IngestConfig fromEnv(Map<String, String> env) {
        Settings settings = Settings.of(env);
        return new IngestConfig(DatabaseConfig.fromEnv(env), KafkaConfig.fromEnv(env), http(settings),
                settings.integer(Env.HTTP_MAX_BODY_BYTES, 256 * 1024, 1, 64 * 1024 * 1024),
                settings.path(Env.TOKENS_FILE, "config/tokens.yaml"),
                settings.path(Env.PROVIDERS_FILE, "config/providers.yaml"),
                settings.path(Env.CONTRACTS_DIR, "config/contracts"),
                settings.flag(Env.OUTBOX_RELAY, true),
                OutboxPruner.retention(settings),
                settings.text(Env.INSTANCE_ID, InstanceIds.defaultFor("ingest")),
                new FrontDoor(
                        settings.integer(Env.HTTP_GROUP_COMMITTERS, FrontDoor.DEFAULT_GROUP_COMMITTERS, 1, 256),
                        settings.integer(Env.HTTP_GROUP_COMMIT_MAX, FrontDoor.DEFAULT_GROUP_COMMIT_MAX, 1, 10_000),
                        settings.integer(Env.RATE_LIMIT_PER_OWNER, FrontDoor.DEFAULT_RATE_PER_OWNER, 0, 1_000_000),
                        settings.duration(Env.HTTP_SHED_QUEUE_WAIT, FrontDoor.DEFAULT_SHED_QUEUE_WAIT, Duration.ZERO,
                                Duration.ofMinutes(10)),
                        settings.integer(Env.HTTP_SHED_BACKLOG, (int) FrontDoor.DEFAULT_SHED_BACKLOG, 0,
                                Integer.MAX_VALUE),
                        settings.duration(Env.HTTP_MAX_WAIT, FrontDoor.DEFAULT_MAX_WAIT, Duration.ZERO,
                                Duration.ofMinutes(10)),
                        settings.duration(Env.HTTP_WAIT_RECHECK, FrontDoor.DEFAULT_WAIT_RECHECK,
                                Duration.ofMillis(50), Duration.ofMinutes(1)))
                        .withPerOwner(
                                settings.integer(Env.HTTP_MAX_REQUESTS_PER_OWNER,
                                        FrontDoor.DEFAULT_REQUESTS_PER_OWNER, 0, 1_000_000),
                                settings.integer(Env.HTTP_MAX_WAITS_PER_OWNER, FrontDoor.DEFAULT_WAITS_PER_OWNER,
                                        0, 1_000_000),
                                settings.integer(Env.HTTP_MAX_STREAMS_PER_OWNER, FrontDoor.DEFAULT_STREAMS_PER_OWNER,
                                        0, 1_000_000)),
                settings.path(Env.OWNERS_FILE, "config/owners.yaml"),
                settings.duration(Env.ARCHIVE_AFTER, KeyRetention.DEFAULT_ARCHIVE_AFTER, Duration.ZERO,
                        Duration.ofDays(3650)),
                settings.duration(Env.RETENTION_EVERY, KeyRetention.DEFAULT_EVERY, Duration.ofSeconds(1),
                        Duration.ofDays(1)),
                settings.path(Env.KAFKA_PRINCIPALS_FILE, "config/kafka-principals.yaml"),
                settings.duration(Env.CERTIFY_WAIT, DEFAULT_CERTIFY_WAIT, Duration.ofSeconds(1), Duration.ofHours(1)));
    }

    /** The API's server: its address, limits and, when both files are given, TLS. */
    public static WebServer.Settings http(Settings settings) {
        Optional<String> cert = settings.raw(Env.HTTP_TLS_CERT_FILE);
        Optional<String> key = settings.raw(Env.HTTP_TLS_KEY_FILE);
        if (cert.isPresent() != key.isPresent()) {
            throw new ConfigException("HTTPS needs both " + Env.HTTP_TLS_CERT_FILE + " and " + Env.HTTP_TLS_KEY_FILE
                    + " (PEM files); only " + (cert.isPresent() ? Env.HTTP_TLS_CERT_FILE : Env.HTTP_TLS_KEY_FILE)
                    + " is set");
        }
        return new WebServer.Settings("http-api",
                settings.text(Env.HTTP_HOST, "0.0.0.0"),
                settings.integer(Env.HTTP_PORT, 8080, 0, 65535),
                settings.integer(Env.HTTP_THREADS, 32, 1, 1024),
                settings.integer(Env.HTTP_MAX_CONNECTIONS, 10_000, 1, 1_000_000),
                settings.integer(Env.HTTP_MAX_HEADER_BYTES, 16 * 1024, 1024, 1024 * 1024),
                settings.duration(Env.HTTP_IDLE_TIMEOUT, Duration.ofSeconds(30), Duration.ofSeconds(1),
                        Duration.ofHours(1)),
                settings.duration(Env.HTTP_REQUEST_HEAD_TIMEOUT, Duration.ofSeconds(10), Duration.ofMillis(100),
                        Duration.ofMinutes(10)),
                cert.map(c -> new PemTls(Path.of(c), Path.of(key.orElseThrow()))).orElse(null),
                settings.integer(Env.HTTP_MAX_BODY_BYTES, WebServer.Settings.DEFAULT_MAX_BODY_BYTES, 1,
                        64 * 1024 * 1024),
                settings.duration(Env.HTTP_REQUEST_BODY_TIMEOUT, WebServer.Settings.DEFAULT_BODY_TIMEOUT,
                        Duration.ofMillis(100), Duration.ofHours(1)),
                settings.integer(Env.HTTP_MIN_BODY_RATE, (int) WebServer.Settings.DEFAULT_MIN_BODY_RATE, 0,
                        1024 * 1024 * 1024));
    }
}
