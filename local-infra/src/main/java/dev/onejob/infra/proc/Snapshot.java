package dev.onejob.infra.proc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A private copy of the build the run executes, laid out like the repository ({@code <module>/target/...}): the
 * service modules' jars and {@code target/lib}, the driver module's classes and classpath files, with every onejob
 * snapshot jar on those classpaths copied too and the classpath files rewritten to the copies. Released third-party
 * jars are used where they are.
 */
final class Snapshot {
    private static final List<String> SERVICES = List.of("ingest-service", "attempt-worker", "result-reconciler",
            "provider-simulator");

    private Snapshot() {
    }

    static Path take(Path root, String module, Path dist) throws IOException {
        deleteRecursively(dist);
        for (String service : SERVICES) {
            Path target = root.resolve(service).resolve("target");
            Path jar = target.resolve("onejob-" + service + "-0.1.0-SNAPSHOT.jar");
            if (Files.isRegularFile(jar) && Files.isDirectory(target.resolve("lib"))) {
                copyTree(target.resolve("lib"), dist.resolve(service).resolve("target/lib"));
                Files.copy(jar, dist.resolve(service).resolve("target").resolve(jar.getFileName()));
            }
        }
        Path driver = root.resolve(module).resolve("target");
        Path copy = dist.resolve(module).resolve("target");
        copyTree(driver.resolve("classes"), copy.resolve("classes"));
        Path libs = copy.resolve("onejob-jars");
        Files.createDirectories(libs);
        try (Stream<Path> files = Files.list(driver)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith("classpath.txt")).toList()) {
                Files.writeString(copy.resolve(file.getFileName().toString()),
                        rewrite(Files.readString(file).trim(), libs));
            }
        }
        return dist;
    }

    private static String rewrite(String classpath, Path libs) throws IOException {
        List<String> entries = new ArrayList<>();
        for (String entry : classpath.split(":")) {
            Path path = Path.of(entry);
            if (path.getFileName().toString().startsWith("onejob-") && Files.isRegularFile(path)) {
                Path copy = libs.resolve(path.getFileName());
                Files.copy(path, copy, StandardCopyOption.REPLACE_EXISTING);
                entries.add(copy.toString());
            } else {
                entries.add(entry);
            }
        }
        return String.join(":", entries);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
