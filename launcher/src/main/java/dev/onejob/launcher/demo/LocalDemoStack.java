package dev.onejob.launcher.demo;

import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.infra.PostgresServer;
import dev.onejob.launcher.InProcessStack;
import dev.onejob.launcher.cli.CliFailure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * The demo's own stack in this process, built as {@code ./onejob dev} builds it ({@link InProcessStack}) with what
 * the scenarios need: a fresh database {@code onejob_demo_<pid>} created and dropped by the demo (or an existing
 * one given with --database-url, left in place), Kafka in-process under a temporary directory (or the broker given
 * with --bootstrap-servers), the HTTP API and both simulators on free ports, and a providers file in which the
 * primary's soft timeout is short (1 s by default), so the timeout story plays in seconds. Nothing is taken from the
 * environment but the database credentials, so the demo never joins a running stack's consumer groups by accident.
 */
final class LocalDemoStack {
    private LocalDemoStack() {
    }

    static DemoTarget start(Map<String, String> userEnv, String databaseUrl, String bootstrapServers,
                            Path contractsDir, Duration primarySoftTimeout, Narrator narrator) {
        if (!Files.isDirectory(contractsDir)) {
            throw CliFailure.usage("no contracts directory at " + contractsDir.toAbsolutePath()
                    + ": run from the project's root, or give --contracts-dir");
        }
        DatabaseConfig database = database(userEnv, databaseUrl);
        boolean ownDatabase = databaseUrl == null;
        Path dir = temporaryDirectory();
        Map<String, String> env = environment(database, bootstrapServers, contractsDir, dir,
                writeProviders(dir, primarySoftTimeout));
        narrator.say("starting a stack of its own: database " + database.databaseName()
                + (ownDatabase ? " (created now, dropped at the end)" : " (given, kept)") + ", "
                + (bootstrapServers == null ? "Kafka in this process" : "Kafka at " + bootstrapServers)
                + ", primary's soft timeout " + TimeoutScenario.seconds(primarySoftTimeout));
        AtomicBoolean closed = new AtomicBoolean();
        InProcessStack stack;
        try {
            stack = InProcessStack.start(env, narrator.out());
        } catch (RuntimeException e) {
            cleanUp(null, ownDatabase ? database : null, dir, narrator, closed);
            throw CliFailure.unreachable("the demo's stack did not start: " + e.getMessage());
        }
        Runnable release = () -> cleanUp(stack, ownDatabase ? database : null, dir, narrator, closed);
        Thread onCtrlC = new Thread(release, "onejob-demo-cleanup");
        Runtime.getRuntime().addShutdownHook(onCtrlC);
        Map<String, String> tokens = stack.devTokens();
        Map<String, String> simulators = stack.simulatorUrls();
        return new DemoTarget(stack.apiUrl(), tokens.get("alice"), tokens.get("ops"),
                simulators.get(DemoContext.PRIMARY), simulators.get(DemoContext.BACKUP), stack.bootstrapServers(),
                primarySoftTimeout, () -> {
                    release.run();
                    try {
                        Runtime.getRuntime().removeShutdownHook(onCtrlC);
                    } catch (IllegalStateException e) {
                        // Already shutting down: the hook is what is running.
                    }
                });
    }

    private static DatabaseConfig database(Map<String, String> userEnv, String databaseUrl) {
        Map<String, String> env = new HashMap<>(userEnv);
        if (databaseUrl != null) {
            env.put("DATABASE_URL", databaseUrl);
        }
        try {
            DatabaseConfig config = DatabaseConfig.fromEnv(env);
            return databaseUrl != null ? config : config.withDatabase("onejob_demo_" + ProcessHandle.current().pid());
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage(e.getMessage());
        }
    }

    private static Map<String, String> environment(DatabaseConfig database, String bootstrapServers,
                                                   Path contractsDir, Path dir, Path providers) {
        Map<String, String> env = new HashMap<>();
        env.put("DATABASE_URL", database.jdbcUrl());
        env.put("DATABASE_USER", database.user());
        if (database.password() != null) {
            env.put("DATABASE_PASSWORD", database.password());
        }
        env.put("DATABASE_POOL_SIZE", "8");
        if (bootstrapServers != null) {
            env.put("KAFKA_BOOTSTRAP_SERVERS", bootstrapServers);
        }
        env.put("ONEJOB_DATA_DIR", dir.toString());
        env.put("HTTP_HOST", "127.0.0.1");
        env.put("HTTP_PORT", "0");
        env.put("SIM_PRIMARY_PORT", "0");
        env.put("SIM_BACKUP_PORT", "0");
        env.put("ONEJOB_SIMULATORS", "true");
        env.put("PROVIDERS_FILE", providers.toString());
        env.put("CONTRACTS_DIR", contractsDir.toAbsolutePath().toString());
        env.put("SWEEP_INTERVAL", "200ms");
        return env;
    }

    private static Path writeProviders(Path dir, Duration primarySoftTimeout) {
        Path file = dir.resolve("providers.yaml");
        try {
            Files.writeString(file, """
                    # Written by ./onejob demo: both providers are the demo's simulators. No cool-down: each scenario
                    # starts on the provider it names, whatever refusals the database already holds.
                    providers:
                      - {id: primary, protocol: openai-chat, base_url: '${SIM_PRIMARY_URL}', model: gpt-4o-mini,
                         api_key_env: PRIMARY_API_KEY, soft_timeout: %dms, hard_timeout: 60s,
                         cooldown: {duration: 0s}}
                      - {id: backup, protocol: anthropic-messages, base_url: '${SIM_BACKUP_URL}',
                         model: claude-sonnet-4-5, api_key_env: BACKUP_API_KEY, soft_timeout: 10s, hard_timeout: 60s,
                         cooldown: {duration: 0s}}
                    """.formatted(primarySoftTimeout.toMillis()));
            return file;
        } catch (IOException e) {
            throw CliFailure.usage("cannot write the demo's providers file " + file + ": " + e.getMessage());
        }
    }

    private static Path temporaryDirectory() {
        try {
            return Files.createTempDirectory("onejob-demo-");
        } catch (IOException e) {
            throw CliFailure.usage("cannot create a temporary directory for the demo: " + e.getMessage());
        }
    }

    /** Stops the stack, drops the demo's own database and deletes its directory; the first call does it all. */
    private static void cleanUp(InProcessStack stack, DatabaseConfig ownDatabase, Path dir, Narrator narrator,
                                AtomicBoolean closed) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (stack != null) {
            stack.close();
        }
        if (ownDatabase != null) {
            drop(ownDatabase, narrator);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            narrator.say("could not delete " + dir + ": " + e.getMessage());
        }
    }

    private static void drop(DatabaseConfig database, Narrator narrator) {
        try {
            PostgresServer.at(database.jdbcUrl(), database.user(), database.password()).drop(database.databaseName());
            narrator.say("dropped the demo's database " + database.databaseName());
        } catch (IllegalStateException e) {
            narrator.say("could not drop the demo's database " + database.databaseName() + ": " + e.getMessage());
        }
    }
}
