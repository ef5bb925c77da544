package dev.onejob.infra;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Finds the machine's PostgreSQL server binaries ({@code initdb}, {@code pg_ctl}, {@code postgres}) for a
 * {@link LocalPostgresCluster}, and executables on {@code PATH} for {@link RunAs}. Reads the file system only.
 */
final class PostgresBinaries {
    private static final Path DEBIAN_VERSIONS = Path.of("/usr/lib/postgresql");
    private static final List<String> SERVER_BINARIES = List.of("initdb", "pg_ctl", "postgres");

    private PostgresBinaries() {
    }

    /**
     * The directory holding {@code initdb}, {@code pg_ctl} and {@code postgres}: {@code pg_config --bindir}, else the
     * highest version under {@code /usr/lib/postgresql/<version>/bin} (Debian, Ubuntu), else
     * {@code /usr/local/pgsql/bin} (a source build), else where {@code initdb} on PATH really lives.
     */
    static Path find() {
        return find(pgConfigBindir(), DEBIAN_VERSIONS, pathDirectories());
    }

    static Path find(Optional<Path> pgConfigBindir, Path versions, List<Path> path) {
        List<String> searched = new ArrayList<>();
        List<Path> candidates = new ArrayList<>();
        pgConfigBindir.ifPresent(candidates::add);
        searched.add("pg_config --bindir (" + pgConfigBindir.map(Path::toString).orElse("no pg_config on PATH") + ")");
        List<Path> versioned = versionDirectories(versions);
        candidates.addAll(versioned);
        searched.add(versions + "/*/bin (" + (versioned.isEmpty() ? "none" : versioned.stream().map(Path::toString)
                .reduce((a, b) -> a + ", " + b).orElse("")) + ")");
        Path sourceBuild = Path.of("/usr/local/pgsql/bin");
        candidates.add(sourceBuild);
        searched.add(sourceBuild.toString());
        candidates.addAll(realInitdbDirectories(path));
        searched.add("initdb on PATH");
        for (Path candidate : candidates) {
            if (SERVER_BINARIES.stream().allMatch(name -> Files.isExecutable(candidate.resolve(name)))) {
                return candidate;
            }
        }
        throw new IllegalStateException("no PostgreSQL server binaries (" + String.join(", ", SERVER_BINARIES)
                + " in one directory) found; searched " + String.join(", ", searched)
                + "; install the PostgreSQL server (Debian: apt-get install postgresql)");
    }

    /** The first executable {@code name} on PATH, else in {@code alsoIn}. */
    static Optional<Path> executable(String name, List<Path> alsoIn) {
        List<Path> dirs = new ArrayList<>(pathDirectories());
        dirs.addAll(alsoIn);
        return dirs.stream().map(dir -> dir.resolve(name)).filter(Files::isExecutable).findFirst();
    }

    /** Where each {@code initdb} on {@code path} really lives (following links). */
    private static List<Path> realInitdbDirectories(List<Path> path) {
        List<Path> directories = new ArrayList<>();
        for (Path dir : path) {
            Path initdb = dir.resolve("initdb");
            if (Files.isExecutable(initdb)) {
                try {
                    directories.add(initdb.toRealPath().getParent());
                } catch (IOException e) {
                    // a dangling link: not a candidate
                }
            }
        }
        return directories;
    }

    /** {@code <versions>/<v>/bin} for every version directory, highest version first. */
    private static List<Path> versionDirectories(Path versions) {
        if (!Files.isDirectory(versions)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(versions)) {
            return entries.filter(p -> p.getFileName().toString().matches("\\d+(\\.\\d+)*"))
                    .sorted(Comparator.comparing((Path p) -> versionKey(p.getFileName().toString())).reversed())
                    .map(p -> p.resolve("bin")).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static String versionKey(String version) {
        StringBuilder key = new StringBuilder();
        for (String part : version.split("\\.")) {
            key.append(String.format("%08d", Long.parseLong(part)));
        }
        return key.toString();
    }

    private static Optional<Path> pgConfigBindir() {
        Optional<Path> pgConfig = executable("pg_config", List.of());
        if (pgConfig.isEmpty()) {
            return Optional.empty();
        }
        try {
            Process process = new ProcessBuilder(pgConfig.get().toString(), "--bindir").redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return Optional.empty();
            }
            return process.exitValue() == 0 && !output.isEmpty() && !output.contains("\n")
                    ? Optional.of(Path.of(output)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static List<Path> pathDirectories() {
        String path = System.getenv("PATH");
        if (path == null || path.isBlank()) {
            return List.of();
        }
        return Arrays.stream(path.split(":")).filter(s -> !s.isBlank()).map(Path::of).toList();
    }
}
