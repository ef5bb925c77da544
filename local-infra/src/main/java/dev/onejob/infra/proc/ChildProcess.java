package dev.onejob.infra.proc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One process a run started, its output in a log file. Stopping it sends SIGTERM (the services stop cleanly on it)
 * and, only if it has not exited after a grace period, kills it; {@link #kill()} and {@link #signal(String)} are the
 * faults a chaos run inflicts. A run ends only processes it started, each by its own handle.
 */
public final class ChildProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path log;

    ChildProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for a log line matching {@code pattern}; fails with the log's tail if the process exits or time runs out. */
    public Matcher awaitLine(Pattern pattern, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (String line : lines()) {
                Matcher matcher = pattern.matcher(line);
                if (matcher.find()) {
                    return matcher;
                }
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with status " + process.exitValue()
                        + " before it was ready; its log ends:\n" + tail(30));
            }
            sleep(100);
        }
        throw new IllegalStateException(name + " did not log /" + pattern + "/ within " + timeout.toSeconds()
                + " s; its log ends:\n" + tail(30));
    }

    /** Waits for the process to exit by itself; its exit status, or -1 (and it is stopped) when time ran out. */
    public int waitFor(Duration timeout) {
        try {
            if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return process.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        close();
        return -1;
    }

    public List<String> lines() {
        try {
            return Files.readAllLines(log);
        } catch (IOException e) {
            return List.of();
        }
    }

    public String tail(int count) {
        List<String> lines = lines();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
    }

    /** SIGKILL: the process gets no chance to clean up, as in a crash or an OOM kill. Waits until it is gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends a signal by name ({@code STOP}, {@code CONT}, ...) with the system's {@code kill}. */
    public void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " (" + name + ") failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run kill -" + signal + " for " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted sending " + signal + " to " + name, e);
        }
    }

    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    public static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
