package dev.onejob.launcher;

import dev.onejob.core.config.Env;
import dev.onejob.core.config.Settings;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.KafkaTopics;
import dev.onejob.core.service.Loops;
import dev.onejob.infra.EmbeddedKafka;
import dev.onejob.infra.PostgresServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The local stack on embedded defaults: PostgreSQL at {@code DATABASE_URL} (database created if missing, migrations
 * applied), Kafka at {@code KAFKA_BOOTSTRAP_SERVERS} or a KRaft broker started in this process with its data under
 * {@code ONEJOB_DATA_DIR}, and every topic created. Says what it is waiting for, and what to do when it fails.
 */
final class LocalStack implements AutoCloseable {
    private final Progress progress;
    private EmbeddedKafka embeddedKafka;
    private LocalServices services;
    private Map<String, String> devTokens = Map.of();
    private Database database;
    private String bootstrapServers;
    private DatabaseConfig databaseConfig;

    private final Consumer<String> onDeadLoop;

    /** A stack whose dead service loops are reported (in the log and on /health) and nothing more. */
    LocalStack(Progress progress) {
        this(progress, Loops.REPORT_ONLY);
    }

    /** {@code onDeadLoop}: what a service's dead loop does to this process ({@link Loops#EXIT} for {@code dev}). */
    LocalStack(Progress progress, Consumer<String> onDeadLoop) {
        this.progress = progress;
        this.onDeadLoop = onDeadLoop;
    }

    void start(Map<String, String> env) {
        databaseConfig = DatabaseConfig.fromEnv(env);
        progress.step("waiting for PostgreSQL at " + databaseConfig.jdbcUrl());
        createDatabaseIfMissing(databaseConfig);
        database = Database.connect(databaseConfig, "onejob-dev");
        progress.step("applying migrations to " + databaseConfig.databaseName());
        Database.migrate(database.dataSource());

        String given = env.get("KAFKA_BOOTSTRAP_SERVERS");
        if (given != null && !given.isBlank()) {
            bootstrapServers = given;
            progress.step("using the Kafka broker at " + given);
        } else {
            Path dataDir = Path.of(env.getOrDefault("ONEJOB_DATA_DIR", ".onejob")).toAbsolutePath().resolve("kafka");
            progress.step("starting Apache Kafka (KRaft, in-process) with its data in " + dataDir);
            embeddedKafka = startEmbeddedKafka(dataDir, kafkaPort(env));
            bootstrapServers = embeddedKafka.bootstrapServers();
        }
        progress.step("creating topics at " + bootstrapServers);
        KafkaTopics.ensure(bootstrapServers, KafkaTopics.allNames(), 3, (short) 1);

        Path dataDir = Path.of(env.getOrDefault("ONEJOB_DATA_DIR", ".onejob")).toAbsolutePath();
        Map<String, String> services = new java.util.HashMap<>(env);
        if (!env.containsKey("TOKENS_FILE")) {
            devTokens = DevTokens.ensure(dataDir);
            services.put("TOKENS_FILE", DevTokens.tokensFile(dataDir).toString());
        }
        this.services = new LocalServices(progress, onDeadLoop);
        this.services.start(services, database, bootstrapServers);
    }

    Map<String, String> devTokens() {
        return devTokens;
    }

    int httpPort() {
        return services.httpPort();
    }

    LocalServices services() {
        return services;
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    DatabaseConfig databaseConfig() {
        return databaseConfig;
    }

    Database database() {
        return database;
    }

    /**
     * {@code KAFKA_PORT} (default 0: a free port of the system's choosing); a port already taken is said loudly and
     * replaced by a free one, so a second stack or a broker of one's own does not stop {@code dev} from starting.
     */
    private int kafkaPort(Map<String, String> env) {
        int port = Settings.of(env).integer(Env.KAFKA_PORT, 0, 0, 65535);
        if (port == 0) {
            return 0;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress("localhost", port));
            return port;
        } catch (IOException e) {
            progress.step("WARNING: port " + port + " is taken (another broker or stack?), so Kafka listens on a port"
                    + " of its own this time: use the address printed below, or set KAFKA_PORT");
            return 0;
        }
    }

    private static EmbeddedKafka startEmbeddedKafka(Path dataDir, int port) {
        try {
            return EmbeddedKafka.start(dataDir, port, Map.of());
        } catch (IllegalStateException e) {
            throw new StartupException("Apache Kafka did not start with its data in " + dataDir + " ("
                    + e.getMessage() + "): delete that directory to start with an empty broker, set ONEJOB_DATA_DIR "
                    + "elsewhere, or set KAFKA_BOOTSTRAP_SERVERS to use a running broker");
        }
    }

    private static void createDatabaseIfMissing(DatabaseConfig config) {
        try {
            PostgresServer.at(config.jdbcUrl(), config.user(), config.password())
                    .createIfMissing(config.databaseName());
        } catch (IllegalStateException e) {
            throw new StartupException(e.getMessage() + " (and DATABASE_USER/DATABASE_PASSWORD)");
        }
    }

    @Override
    public void close() {
        if (services != null) {
            services.close();
        }
        if (database != null) {
            database.close();
        }
        if (embeddedKafka != null) {
            embeddedKafka.close();
        }
    }
}
