package dev.onejob.launcher;

import dev.onejob.core.config.Env;
import dev.onejob.core.config.Settings;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.service.Closeables;
import dev.onejob.core.service.Loops;
import dev.onejob.infra.EmbeddedKafka;
import dev.onejob.infra.PostgresServer;
import dev.onejob.stack.LocalKafka;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The local stack on embedded defaults: PostgreSQL at {@code DATABASE_URL} (database created if missing, migrations
 * applied), Kafka at {@code KAFKA_BOOTSTRAP_SERVERS} or a KRaft broker started in this process with its data under
 * {@code ONEJOB_DATA_DIR} (the stack kit's {@link LocalKafka}), and every topic created. Says what it is waiting
 * for, and what to do when it fails.
 */
final class LocalStack implements AutoCloseable {
    private final Progress progress;
    private LocalKafka kafka;
    private LocalServices services;
    private Map<String, String> devTokens = Map.of();
    private Database database;
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

        String given = LocalKafka.given(env);
        if (given != null) {
            progress.step("using the Kafka broker at " + given);
        }
        kafka = LocalKafka.fromEnv(env, () -> {
            Path kafkaDir = dataDir(env).resolve("kafka");
            progress.step("starting Apache Kafka (KRaft, in-process) with its data in " + kafkaDir);
            return startEmbeddedKafka(kafkaDir, kafkaPort(env));
        });
        progress.step("creating topics at " + kafka.bootstrapServers());
        kafka.createTopics(List.of(), 3);

        Map<String, String> services = new HashMap<>(env);
        if (!env.containsKey(Env.TOKENS_FILE)) {
            devTokens = DevTokens.ensure(dataDir(env));
            services.put(Env.TOKENS_FILE, DevTokens.tokensFile(dataDir(env)).toString());
        }
        this.services = new LocalServices(progress, onDeadLoop);
        this.services.start(services, database, kafka.bootstrapServers());
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
        return kafka.bootstrapServers();
    }

    private static Path dataDir(Map<String, String> env) {
        return Path.of(env.getOrDefault(Env.ONEJOB_DATA_DIR, ".onejob")).toAbsolutePath();
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
        Closeables.closeInOrder(services, database, kafka);
    }
}
