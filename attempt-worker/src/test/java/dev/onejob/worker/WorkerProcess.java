package dev.onejob.worker;

import dev.onejob.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** An attempt worker in a process of its own, from its own main, so a test can kill it with SIGKILL. */
final class WorkerProcess {
    private WorkerProcess() {
    }

    /** The primary's API key in the worker process's environment; it must never reach its log. */
    static final String API_KEY = "sk-test-DO-NOT-LEAK-4242";
    static final Path LOG = Path.of("target/worker-process.log");

    static Process start(WorkerFixture fixture, Duration softTimeout) throws IOException {
        Path providers = Files.createTempFile("providers", ".yaml");
        Files.writeString(providers, "providers:\n"
                + "  - {id: primary, protocol: openai-chat, base_url: '" + fixture.primary.baseUrl() + "', model: m, "
                + "api_key_env: PRIMARY_API_KEY, soft_timeout: " + softTimeout.toMillis() + "ms, hard_timeout: 3s}\n"
                + "  - {id: backup, protocol: anthropic-messages, base_url: '" + fixture.backup.baseUrl() + "', model: m}\n");
        TestDatabase db = TestDatabase.shared();
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), WorkerMain.class.getName());
        builder.environment().put("DATABASE_URL", db.jdbcUrl());
        builder.environment().put("DATABASE_USER", db.user());
        builder.environment().put("KAFKA_BOOTSTRAP_SERVERS", fixture.bootstrap);
        builder.environment().put("PROVIDERS_FILE", providers.toString());
        builder.environment().put("CONTRACTS_DIR", Path.of("../config/contracts").toAbsolutePath().toString());
        builder.environment().put("INSTANCE_ID", "worker-process");
        builder.environment().put("PRIMARY_API_KEY", API_KEY);
        builder.environment().put("METRICS_PORT", "0");
        // Per-call lines (event=attempt_started) are DEBUG: logged here, so the key check covers them too.
        builder.environment().put("ONEJOB_LOG_LEVEL", "DEBUG");
        builder.redirectErrorStream(true);
        builder.redirectOutput(LOG.toFile());
        return builder.start();
    }
}
