package dev.onejob.chaos.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restarts the machine's PostgreSQL server the way a crash would ({@code -m immediate}: no checkpoint, clients cut
 * off, WAL replay on start) and reports how long it was unavailable. The command is {@code CHAOS_PG_RESTART} (run
 * with {@code sh -c}) when set, else Debian's {@code pg_ctlcluster} for the one cluster version under
 * {@code /etc/postgresql}. Owns no state; the server is shared, so nothing here runs unless a chaos run asks.
 */
public final class Postgres {
    public static final String RESTART_ENV = "CHAOS_PG_RESTART";
    private static final Logger LOG = LoggerFactory.getLogger(Postgres.class);
    private static final Path CLUSTERS = Path.of("/etc/postgresql");
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final List<String> PG_ISREADY = List.of("pg_isready", "-q", "-h", "127.0.0.1", "-p", "5432");

    private Postgres() {
    }

    /**
     * Restarts the server and waits until {@code pg_isready} says it accepts connections again (at most 60 s).
     * Returns the time from issuing the restart to that answer: an immediate shutdown cuts clients off at once.
     */
    public static Duration restart() {
        List<String> command = restartCommand(System.getenv(), CLUSTERS);
        LOG.info("restarting PostgreSQL: {}", String.join(" ", command));
        long began = System.nanoTime();
        Completed restart = run(command, COMMAND_TIMEOUT);
        if (restart.exitCode() != 0) {
            throw new IllegalStateException("restarting PostgreSQL with `" + String.join(" ", command)
                    + "` exited with " + restart.exitCode() + ": " + restart.output());
        }
        long deadline = began + READY_TIMEOUT.toNanos();
        while (run(PG_ISREADY, Duration.ofSeconds(10)).exitCode() != 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("PostgreSQL did not accept connections on 127.0.0.1:5432 within "
                        + READY_TIMEOUT.toSeconds() + " s of `" + String.join(" ", command) + "`");
            }
            LoopbackPorts.pause(100);
        }
        Duration down = Duration.ofNanos(System.nanoTime() - began);
        LOG.info("PostgreSQL accepts connections again after {} ms", down.toMillis());
        return down;
    }

    /** The restart command: {@code sh -c $CHAOS_PG_RESTART} when set, else pg_ctlcluster for the one version. */
    static List<String> restartCommand(Map<String, String> env, Path clusters) {
        String custom = env.get(RESTART_ENV);
        if (custom != null && !custom.isBlank()) {
            return List.of("sh", "-c", custom);
        }
        // --skip-systemctl-redirect: act on the server directly, also where no systemd runs (containers).
        return List.of("pg_ctlcluster", "--skip-systemctl-redirect", onlyVersion(clusters), "main", "restart",
                "-m", "immediate");
    }

    private static String onlyVersion(Path clusters) {
        List<String> versions;
        try (Stream<Path> entries = Files.list(clusters)) {
            versions = entries.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + clusters + " to find the PostgreSQL version; set "
                    + RESTART_ENV + " to the command that restarts the server", e);
        }
        if (versions.size() != 1) {
            throw new IllegalStateException("expected exactly one PostgreSQL version under " + clusters
                    + ", found " + versions + "; set " + RESTART_ENV + " to the command that restarts the server");
        }
        return versions.get(0);
    }

    private record Completed(int exitCode, String output) {
    }

    private static Completed run(List<String> command, Duration timeout) {
        try {
            Path output = Files.createTempFile("onejob-pg-", ".out");
            try {
                // Output to a file: pg_ctlcluster's server may keep a pipe open long after the command returned.
                Process process = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(output.toFile()).start();
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    return new Completed(-1, command.get(0) + " did not finish within " + timeout.toSeconds() + " s");
                }
                return new Completed(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8).strip());
            } finally {
                Files.deleteIfExists(output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command.get(0), e);
        }
    }
}
