package dev.onejob.launcher.cli;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Where the running {@code ./onejob dev} stack is: {@code stack.properties} in its data directory, holding the
 * variables a command would otherwise need to be given ({@code ONEJOB_URL}, {@code KAFKA_BOOTSTRAP_SERVERS},
 * {@code DATABASE_URL}, {@code DATABASE_USER}) and the pid of the process that wrote it. Written when the stack is
 * up, deleted when it stops; a file left by a process that is gone (killed with SIGKILL) is ignored. Commands read
 * it under the environment ({@link CliContext#running}): a variable that is set always wins.
 */
public final class StackFile {
    public static final String NAME = "stack.properties";
    private static final String PID = "pid";

    private StackFile() {
    }

    /** The stack file of the data directory {@code ONEJOB_DATA_DIR} names, else {@code .onejob}. */
    public static Path in(Map<String, String> env) {
        String dir = env.get("ONEJOB_DATA_DIR");
        return Path.of(dir == null || dir.isBlank() ? ".onejob" : dir.trim()).resolve(NAME);
    }

    /** Writes {@code values} and this process's pid, replacing the file in one rename. */
    public static void write(Path file, Map<String, String> values) {
        Properties properties = new Properties();
        properties.putAll(values);
        properties.setProperty(PID, Long.toString(ProcessHandle.current().pid()));
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path temporary = file.resolveSibling(NAME + ".tmp");
            try (Writer out = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
                properties.store(out, "written by ./onejob dev while it runs; deleted when it stops");
            }
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** Deletes the file if this process wrote it (a second stack started since keeps its own). */
    public static void deleteIfOurs(Path file) {
        if (String.valueOf(ProcessHandle.current().pid()).equals(readRaw(file).get(PID))) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // best effort at shutdown: a stale file is ignored once its pid is gone
            }
        }
    }

    /**
     * The variables of a stack that is running: empty when there is no file, it cannot be read, or the process that
     * wrote it is gone.
     */
    public static Map<String, String> readLive(Path file) {
        Map<String, String> values = readRaw(file);
        String pid = values.remove(PID);
        if (pid == null) {
            return Map.of();
        }
        try {
            boolean alive = ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
            return alive ? values : Map.of();
        } catch (NumberFormatException e) {
            return Map.of();
        }
    }

    private static Map<String, String> readRaw(Path file) {
        if (!Files.isRegularFile(file)) {
            return new LinkedHashMap<>();
        }
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        } catch (IOException | IllegalArgumentException e) {
            return new LinkedHashMap<>();
        }
        Map<String, String> values = new LinkedHashMap<>();
        properties.stringPropertyNames().forEach(name -> values.put(name, properties.getProperty(name)));
        return values;
    }
}
