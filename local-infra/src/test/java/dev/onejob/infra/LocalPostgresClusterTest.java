package dev.onejob.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the cluster finds PostgreSQL's server binaries, and how it runs them as another user when root. */
class LocalPostgresClusterTest {
    @TempDir
    Path dir;

    @Test
    void pgConfigsBindirWinsWhenItHoldsTheServerBinaries() throws IOException {
        Path pgConfig = serverBinaries(dir.resolve("pgconfig/bin"));
        serverBinaries(dir.resolve("versions/16/bin"));
        assertEquals(pgConfig, LocalPostgresCluster.binaries(Optional.of(pgConfig), dir.resolve("versions"),
                List.of()));
    }

    @Test
    void elseTheHighestVersionUnderTheVersionsDirectory() throws IOException {
        // pg_config of a client-only install (libpq-dev) names a bindir without the server.
        Path clientOnly = Files.createDirectories(dir.resolve("client/bin"));
        serverBinaries(dir.resolve("versions/9.6/bin"));
        Path sixteen = serverBinaries(dir.resolve("versions/16/bin"));
        serverBinaries(dir.resolve("versions/15/bin"));
        Files.createDirectories(dir.resolve("versions/17/bin")); // a version without its server package
        assertEquals(sixteen, LocalPostgresCluster.binaries(Optional.of(clientOnly), dir.resolve("versions"),
                List.of()));
    }

    @Test
    void elseWhereInitdbOnThePathReallyLives() throws IOException {
        Path real = serverBinaries(dir.resolve("real/bin"));
        Path onPath = Files.createDirectories(dir.resolve("path"));
        Files.createSymbolicLink(onPath.resolve("initdb"), real.resolve("initdb"));
        assertEquals(real.toRealPath(), LocalPostgresCluster.binaries(Optional.empty(), dir.resolve("none"),
                List.of(onPath)));
    }

    @Test
    void noServerBinariesIsAnErrorThatSaysWhatWasSearched() {
        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> LocalPostgresCluster.binaries(Optional.empty(), dir.resolve("none"), List.of(dir)));
        assertTrue(error.getMessage().contains("pg_config --bindir"), error.getMessage());
        assertTrue(error.getMessage().contains(dir.resolve("none") + "/*/bin"), error.getMessage());
        assertTrue(error.getMessage().contains("initdb on PATH"), error.getMessage());
    }

    @Test
    void asRootTheBinariesRunThroughRunuserOrSu() {
        List<String> initdb = List.of("/usr/lib/postgresql/15/bin/initdb", "-D", "/tmp/it's here/data");
        assertEquals(List.of("/usr/sbin/runuser", "-u", "postgres", "--", "/usr/lib/postgresql/15/bin/initdb", "-D",
                        "/tmp/it's here/data"),
                new RunAs("/usr/sbin/runuser", "postgres").command(initdb));
        assertEquals(List.of("/usr/bin/su", "-s", "/bin/sh", "-c",
                        "exec /usr/lib/postgresql/15/bin/initdb -D '/tmp/it'\\''s here/data'", "postgres"),
                new RunAs("/usr/bin/su", "postgres").command(initdb));
        assertEquals(initdb, RunAs.DIRECT.command(initdb));
    }

    private static Path serverBinaries(Path bin) throws IOException {
        Files.createDirectories(bin);
        for (String name : List.of("initdb", "pg_ctl", "postgres")) {
            Files.writeString(bin.resolve(name), "#!/bin/sh\n");
            Files.setPosixFilePermissions(bin.resolve(name), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return bin;
    }
}
