package dev.onejob.bench;

import dev.onejob.infra.RunFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

/**
 * Who the benchmark's tokens are for and how its providers are set: eight submitting owners and one operator (the
 * tokens go to the load generator and the peer through {@code tokens.properties}); {@code primary} (openai-chat,
 * soft timeout 1 s, hard 2 s) and {@code backup} (anthropic-messages, 5 s / 10 s) at the run's simulators, and
 * {@code slow} for the slow-provider phase (anthropic-messages at the backup's simulator, 10 s / 30 s: timeouts for
 * calls that take seconds). The files themselves are written by the shared kit ({@link RunFiles}), {@code slow}
 * appended here; contracts are the project's own.
 */
final class BenchFiles {
    static final List<String> OWNERS = List.of("bench-0", "bench-1", "bench-2", "bench-3", "bench-4", "bench-5",
            "bench-6", "bench-7");
    static final String OPERATOR = "ops";
    static final String API_KEY = "sk-onejob-bench";
    static final String PRIMARY_SOFT_TIMEOUT = "1s";
    static final String PRIMARY_HARD_TIMEOUT = "2s";

    private BenchFiles() {
    }

    static final String SLOW = "slow";
    static final Duration SLOW_SOFT_TIMEOUT = Duration.ofSeconds(10);
    static final Duration SLOW_HARD_TIMEOUT = Duration.ofSeconds(30);
    /** The backlog run's provider: every call takes {@link #LONG_CALL}, well inside its timeouts. */
    static final String LONG = "long";
    static final Duration LONG_CALL = Duration.ofSeconds(30);
    static final Duration LONG_SOFT_TIMEOUT = Duration.ofSeconds(45);
    static final Duration LONG_HARD_TIMEOUT = Duration.ofSeconds(60);

    static RunFiles write(Path dir, Path root) {
        RunFiles files = RunFiles.write(dir, root, "bench", OWNERS, OPERATOR,
                new RunFiles.Timeouts(Duration.ofSeconds(1), Duration.ofSeconds(2)),
                new RunFiles.Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(10)), true);
        try {
            Files.writeString(files.providersFile(), """
                      - {id: %s, protocol: anthropic-messages, base_url: '${SIM_BACKUP_URL}',
                         model: claude-sonnet-4-5, api_key_env: BACKUP_API_KEY, soft_timeout: %dms, hard_timeout: %dms}
                      - {id: %s, protocol: anthropic-messages, base_url: '${SIM_BACKUP_URL}',
                         model: claude-sonnet-4-5, api_key_env: BACKUP_API_KEY, soft_timeout: %dms, hard_timeout: %dms}
                    """.formatted(SLOW, SLOW_SOFT_TIMEOUT.toMillis(), SLOW_HARD_TIMEOUT.toMillis(),
                            LONG, LONG_SOFT_TIMEOUT.toMillis(), LONG_HARD_TIMEOUT.toMillis()),
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot add the slow and long providers to " + files.providersFile(), e);
        }
        return files;
    }
}
