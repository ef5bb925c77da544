package dev.onejob.bench.proc;

import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.infra.proc.ProcessRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Flight recordings of the services, one per phase and process: {@code jcmd <pid> JFR.start} (the JDK's
 * {@code default} settings, about 1% overhead) when the phase starts, {@code JFR.stop} with a file when it ends.
 * The report summarises them only for targets that were missed.
 */
public final class JfrRecorder {
    private final ProcessRunner runner;
    private final Path dir;

    public JfrRecorder(ProcessRunner runner, Path dir) {
        this.runner = runner;
        this.dir = dir;
    }

    public void start(String phase, List<ChildProcess> processes) {
        for (ChildProcess process : processes) {
            jcmd(process, phase + "-start", "JFR.start", "name=bench-" + phase, "settings=default");
        }
    }

    /** Stops the phase's recordings; the file of each process that wrote one, by process name. */
    public Map<String, Path> stop(String phase, List<ChildProcess> processes) {
        Map<String, Path> files = new LinkedHashMap<>();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        for (ChildProcess process : processes) {
            Path file = dir.resolve(process.name() + "-" + phase + ".jfr");
            ProcessRunner.Completed stopped = jcmd(process, phase + "-stop", "JFR.stop", "name=bench-" + phase,
                    "filename=" + file);
            if (stopped.exitCode() == 0 && file.toFile().exists()) {
                files.put(process.name(), file);
            }
        }
        return files;
    }

    private ProcessRunner.Completed jcmd(ChildProcess process, String what, String... command) {
        List<String> args = new ArrayList<>(List.of(ProcessRunner.javaTool("jcmd"),
                Long.toString(process.pid())));
        args.addAll(List.of(command));
        return runner.run("jcmd-" + process.name() + "-" + what, args, Map.of(), Duration.ofSeconds(60));
    }
}
