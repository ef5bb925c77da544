package dev.onejob.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A {@link LocalPostgresCluster}'s own directory on disk: created fresh ({@code onejob-pg-*}), handed to the OS user
 * the PostgreSQL binaries run as when this JVM is root, and deleted with everything in it.
 */
final class ClusterDirectory {
    private ClusterDirectory() {
    }

    /** A fresh {@code onejob-pg-*} directory under {@code parent}, owned by {@code osUser} unless null. */
    static Path create(Path parent, String osUser) {
        try {
            Path directory = Files.createTempDirectory(parent, "onejob-pg-").toAbsolutePath();
            if (osUser != null) {
                Files.setOwner(directory, principal(directory, osUser));
            }
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for a PostgreSQL cluster under " + parent, e);
        }
    }

    /** Deletes the directory and all in it; a failure is reported on stderr, not thrown. */
    static void delete(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            System.err.println("could not delete the PostgreSQL cluster directory " + directory + ": " + e);
        }
    }

    private static UserPrincipal principal(Path anyFile, String osUser) throws IOException {
        try {
            return anyFile.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(osUser);
        } catch (UserPrincipalNotFoundException e) {
            throw new IllegalStateException("running as root, where initdb and postgres refuse to run, the cluster "
                    + "needs the OS user " + osUser + " to run them as; it does not exist (the PostgreSQL server "
                    + "package creates it; or run as another user)", e);
        }
    }
}
