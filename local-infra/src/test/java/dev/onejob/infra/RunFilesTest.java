package dev.onejob.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files that hold a run's tokens are owner-only, also where a readable one was there before. */
class RunFilesTest {
    private static final RunFiles.Timeouts TIMEOUTS = new RunFiles.Timeouts(Duration.ofSeconds(5),
            Duration.ofSeconds(15));

    @TempDir
    Path dir;

    @Test
    void theTokenFilesAreOwnerOnlyEvenWhereReadableOnesWereBefore() throws IOException {
        assumeTrue(OwnerOnlyFile.enforced(dir), "no POSIX permissions on this file system");
        // given token files left readable by everyone (as the default umask wrote them before)
        Path config = dir.resolve("config");
        Files.createDirectories(config);
        for (String name : List.of("tokens.yaml", "tokens.properties")) {
            Files.writeString(config.resolve(name), "old");
            Files.setPosixFilePermissions(config.resolve(name), PosixFilePermissions.fromString("rw-r--r--"));
        }

        // when a run writes its files there
        RunFiles files = RunFiles.write(config, Path.of(".."), "t", List.of("a"), "ops", TIMEOUTS, TIMEOUTS, true);

        // then both token files hold the new tokens and only their owner may read them
        for (Path file : List.of(files.tokensFile(), files.plainTokensFile())) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)),
                    file.toString());
        }
        assertTrue(Files.readString(files.plainTokensFile()).contains(files.token("a")));
        assertTrue(Files.readString(files.tokensFile()).contains(RunFiles.sha256Hex(files.token("ops"))));
        try (var left = Files.list(config)) {
            assertEquals(List.of(), left.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList(),
                    "no temporary file is left behind");
        }
    }

    @Test
    void aFileWrittenOwnerOnlyIsNeverReadableByOthersWhateverTheUmask() throws IOException {
        assumeTrue(OwnerOnlyFile.enforced(dir), "no POSIX permissions on this file system");
        Path file = dir.resolve("secret.properties");

        OwnerOnlyFile.write(file, "alice=dev-alice-0123456789abcdef\n");

        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals("alice=dev-alice-0123456789abcdef\n", Files.readString(file));
    }
}
