package dev.onejob.infra;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Sends a signal ({@code STOP}, {@code CONT}, ...) to a process and every process it started, through the
 * {@code kill} command, as {@link LocalPostgresCluster#signalAll} freezes and thaws a server.
 */
final class ProcessSignals {
    private ProcessSignals() {
    }

    /**
     * The parent first (so it starts no new child while its children are stopped), then every descendant. A child
     * may exit between the listing and the signal (a client disconnected): that is no failure.
     */
    static void sendToTree(long pid, String signal) {
        kill(signal, List.of(Long.toString(pid)), false);
        List<String> children = new ArrayList<>();
        ProcessHandle.of(pid).ifPresent(parent -> parent.descendants()
                .forEach(child -> children.add(Long.toString(child.pid()))));
        if (!children.isEmpty()) {
            kill(signal, children, true);
        }
    }

    private static void kill(String signal, List<String> pids, boolean goneIsFine) {
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
        command.addAll(pids);
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            boolean done = kill.waitFor(10, TimeUnit.SECONDS);
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            boolean onlyGone = output.lines().allMatch(line -> line.contains("No such process"));
            if (!done || kill.exitValue() != 0 && !(goneIsFine && onlyGone)) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted sending " + signal + " to PostgreSQL", e);
        }
    }
}
