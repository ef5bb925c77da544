package dev.onejob.stack.infra;

import dev.onejob.infra.proc.ProcessRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Where the infrastructure tests put their processes' logs, run directories and build snapshot. */
final class InfraRuns {
    private InfraRuns() {
    }

    static Path root() {
        String root = System.getenv("ONEJOB_ROOT");
        if (root == null || root.isBlank()) {
            throw new IllegalStateException("ONEJOB_ROOT is not set (failsafe sets it in stack/pom.xml)");
        }
        return Path.of(root).toAbsolutePath().normalize();
    }

    /** {@code stack/target/infra-it/<name>}, a directory of its own for each test. */
    static Path dir(String name) {
        return root().resolve("stack/target/infra-it").resolve(name);
    }

    /** {@code dir}, emptied first so state from an earlier run (a formatted broker) cannot leak in. */
    static Path fresh(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
        return Files.createDirectories(dir);
    }

    static ProcessRunner runner(String name) {
        return new ProcessRunner(root(), "stack", dir(name).resolve("logs"), dir(name).resolve("dist"));
    }
}
