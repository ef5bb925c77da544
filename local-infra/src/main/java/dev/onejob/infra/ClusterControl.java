package dev.onejob.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one {@link LocalPostgresCluster}'s PostgreSQL binaries ({@code initdb}, {@code pg_ctl}) in its directory, as
 * {@link RunAs} says, their output appended to the cluster's log (a server that {@code pg_ctl} starts keeps writing
 * there after {@code pg_ctl} returned); writes the cluster's settings; and reads the log back for error messages.
 */
final class ClusterControl {
    /** How long {@code pg_ctl} waits for the server, and the cluster for its first connection. */
    static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(120);

    private final Path bin;
    private final Path directory;
    private final Path data;
    private final Path log;
    private final RunAs runAs;

    ClusterControl(Path bin, Path directory, Path log, RunAs runAs) {
        this.bin = bin;
        this.directory = directory;
        this.data = directory.resolve("data");
        this.log = log;
        this.runAs = runAs;
    }

    Path data() {
        return data;
    }

    Path log() {
        return log;
    }

    /** Creates the data directory for {@code superuser} (trust authentication) and appends {@code settings}. */
    void initdb(String superuser, List<String> settings) {
        long offset = logSize();
        int exit = run(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", superuser,
                "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"));
        if (exit != 0) {
            throw failure("initdb exited with " + exit + (runAs == RunAs.DIRECT ? ""
                    : " (running as the OS user " + runAs.user() + ", who must be able to reach " + directory + ")"),
                    offset);
        }
        List<String> all = new ArrayList<>(settings);
        all.add("unix_socket_directories = '" + directory.toString().replace("'", "''") + "'");
        appendConf(all);
    }

    /** {@code pg_ctl -D <data> -w -t <ready timeout> <action...>}; its exit code (-1 when it was killed). */
    int pgCtl(String... action) {
        List<String> command = new ArrayList<>(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(),
                "-w", "-t", Long.toString(READY_TIMEOUT.toSeconds())));
        command.addAll(Arrays.asList(action));
        return run(command);
    }

    /** How to start a kept cluster again by hand (a shell command line). */
    String startCommand() {
        return RunAs.shellQuoted(runAs.command(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(),
                "-l", directory.resolve("postgres.log").toString(), "start")));
    }

    void appendConf(List<String> lines) {
        try {
            Files.writeString(data.resolve("postgresql.conf"), "\n# onejob\n" + String.join("\n", lines) + "\n",
                    StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + data.resolve("postgresql.conf"), e);
        }
    }

    /** The log's size now: an offset for {@link #logSince} and {@link #failure}. */
    long logSize() {
        try {
            return Files.exists(log) ? Files.size(log) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    String logSince(long offset) {
        try {
            byte[] bytes = Files.readAllBytes(log);
            int from = (int) Math.min(offset, bytes.length);
            return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** {@code what}, followed by the last 30 lines the log gained since {@code offset}. */
    IllegalStateException failure(String what, long offset) {
        String since = logSince(offset).strip();
        List<String> lines = since.lines().toList();
        String tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        return new IllegalStateException(what + "; " + log + " ends:\n" + tail);
    }

    private int run(List<String> command) {
        List<String> full = runAs.command(command);
        appendLog("onejob: " + String.join(" ", full));
        ProcessBuilder builder = new ProcessBuilder(full).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("LC_ALL", "C");
        builder.environment().remove("PGDATA");
        builder.environment().remove("PGPORT");
        try {
            Process process = builder.start();
            if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                appendLog("onejob: " + command.get(0) + " did not finish within " + COMMAND_TIMEOUT.toSeconds()
                        + " s and was killed");
                return -1;
            }
            return process.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + full.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command.get(0), e);
        }
    }

    private void appendLog(String line) {
        try {
            Files.writeString(log, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + log, e);
        }
    }
}
