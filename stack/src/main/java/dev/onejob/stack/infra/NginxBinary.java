package dev.onejob.stack.infra;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the nginx executable a run of the stack uses as its load balancer: an installed one, else one unpacked earlier
 * under {@code <root>/.onejob/tools/nginx}, else it unpacks Debian's own {@code nginx} package there (downloaded
 * with {@code apt-get download}, nothing installed system-wide). Owns that tools directory.
 */
public final class NginxBinary {
    private static final Logger LOG = LoggerFactory.getLogger(NginxBinary.class);
    private static final Path SYSTEM_NGINX = Path.of("/usr/sbin/nginx");
    private static final String INSTALL_HINT = "install it with `apt-get install nginx` (Debian/Ubuntu) "
            + "or put an nginx executable on PATH";

    private NginxBinary() {
    }

    /** The nginx executable to run; fetches Debian's package into {@code <root>/.onejob/tools} if there is none. */
    public static Path locate(Path root) {
        Path installed = installed(System.getenv("PATH"));
        if (installed != null) {
            return installed;
        }
        Path tools = root.resolve(".onejob/tools");
        Path unpacked = executableIn(tools.resolve("nginx"));
        if (Files.isExecutable(unpacked)) {
            return unpacked;
        }
        LOG.info("nginx is not installed; fetching Debian's nginx package into {} (nothing is installed "
                + "system-wide)", tools.resolve("nginx"));
        return fetch(tools);
    }

    static Path installed(String path) {
        if (path != null) {
            for (String dir : path.split(":")) {
                Path candidate = Path.of(dir.isEmpty() ? "." : dir, "nginx");
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return Files.isExecutable(SYSTEM_NGINX) ? SYSTEM_NGINX : null;
    }

    private static Path executableIn(Path unpacked) {
        return unpacked.resolve("usr/sbin/nginx");
    }

    private static Path fetch(Path tools) {
        Path download = null;
        Path staging = null;
        try {
            Files.createDirectories(tools);
            download = Files.createTempDirectory(tools, "download-");
            try {
                run(List.of("apt-get", "download", "nginx"), download);
            } catch (IllegalStateException e) {
                // A machine whose package lists were never fetched knows no nginx yet: fetch them once, then retry.
                LOG.info("apt-get download nginx failed ({}); refreshing the package lists and trying again",
                        e.getMessage());
                run(List.of("apt-get", "update"), download);
                run(List.of("apt-get", "download", "nginx"), download);
            }
            Path deb = onlyDeb(download);
            // Unpack beside the final place and move it in one step, so a concurrent run never sees half a tree.
            staging = Files.createTempDirectory(tools, "nginx-");
            run(List.of("dpkg-deb", "-x", deb.toString(), staging.toString()), download);
            Path target = tools.resolve("nginx");
            moveIntoPlace(staging, target);
            Path nginx = executableIn(target);
            if (!Files.isExecutable(nginx)) {
                throw new IllegalStateException(deb.getFileName() + " holds no usr/sbin/nginx");
            }
            LOG.info("unpacked {} into {}; using {}", deb.getFileName(), target, nginx);
            return nginx;
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("nginx is not installed and fetching Debian's nginx package failed ("
                    + e.getMessage() + "); " + INSTALL_HINT, e);
        } finally {
            deleteQuietly(download);
            deleteQuietly(staging);
        }
    }

    private static Path onlyDeb(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> debs = files.filter(f -> f.getFileName().toString().endsWith(".deb")).toList();
            if (debs.size() != 1) {
                throw new IllegalStateException("apt-get download nginx left " + debs.size() + " .deb files in "
                        + dir);
            }
            LOG.info("downloaded {}", debs.get(0).getFileName());
            return debs.get(0);
        }
    }

    private static void moveIntoPlace(Path staging, Path target) throws IOException {
        try {
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException e) {
            LOG.info("another run unpacked nginx into {} first; using that", target);
        } catch (IOException e) {
            // A non-empty target makes rename(2) fail with ENOTEMPTY, which Java reports as a plain IOException.
            if (!Files.isExecutable(executableIn(target))) {
                throw e;
            }
        }
    }

    /** Runs a tool in {@code dir} with its output in a file there, so a hung tool cannot block a pipe read. */
    private static void run(List<String> command, Path dir) throws IOException {
        LOG.info("running {} in {}", String.join(" ", command), dir);
        Path output = dir.resolve(command.get(0) + ".out");
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile()).start();
        try {
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(command.get(0) + " did not finish within 5 minutes");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command.get(0), e);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited with " + process.exitValue()
                    + ": " + Files.readString(output, StandardCharsets.UTF_8).strip());
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            LOG.warn("cannot delete {}: {}", dir, e.toString());
        }
    }
}
