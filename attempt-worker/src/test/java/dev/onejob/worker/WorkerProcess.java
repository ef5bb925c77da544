package dev.onejob.worker;

import dev.onejob.testing.TestDatabase;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** An attempt worker in a process of its own, from its own main, so a test can kill it with SIGKILL. */
final class WorkerProcess {
    private WorkerProcess() {
    }

    static Process start(WorkerFixture fixture, Duration softTimeout) throws IOException {
        Path providers = Files.createTempFile("providers", ".yaml");
        Files.writeString(providers, "providers:\n"
                + "  - {id: primary, protocol: openai-chat, base_url: '" + fixture.primary.baseUrl() + "', model: m, "
                + "soft_timeout: " + softTimeout.toMillis() + "ms, hard_timeout: 60s}\n"
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
        builder.redirectErrorStream(true);
        builder.redirectOutput(new File("target/worker-process.log"));
        return builder.start();
    }
}
