package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.onejob.infra.OwnerOnlyFile;
import dev.onejob.ingest.Tokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./onejob dev}'s tokens: long, kept across starts, in files only their owner may read. */
class DevTokensTest {
    @TempDir
    Path dataDir;

    private String permissions(String name) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir.resolve(name)));
    }

    @Test
    void freshDevTokensAreWrittenOwnerOnly() throws IOException {
        assumeTrue(OwnerOnlyFile.enforced(dataDir), "no POSIX permissions on this file system");

        Map<String, String> tokens = DevTokens.ensure(dataDir);

        assertEquals("rw-------", permissions("dev-tokens.properties"));
        assertEquals("rw-------", permissions("tokens.yaml"));
        Tokens hashed = Tokens.load(DevTokens.tokensFile(dataDir));
        for (String owner : List.of("alice", "bob", "ops")) {
            assertTrue(tokens.get(owner).length() >= Tokens.MIN_TOKEN_LENGTH, tokens.get(owner));
            assertEquals(owner, hashed.authenticate(tokens.get(owner)).orElseThrow().ownerId());
        }
    }

    @Test
    void devTokensLeftReadableByOthersAreKeptAndTheirFilesTightened() throws IOException {
        assumeTrue(OwnerOnlyFile.enforced(dataDir), "no POSIX permissions on this file system");
        // given the files of an earlier start, readable by everyone
        Map<String, String> before = DevTokens.ensure(dataDir);
        for (String name : List.of("dev-tokens.properties", "tokens.yaml")) {
            Files.setPosixFilePermissions(dataDir.resolve(name), PosixFilePermissions.fromString("rw-r--r--"));
        }

        // when the stack starts again
        Map<String, String> after = DevTokens.ensure(dataDir);

        // then the same tokens, now owner-only
        assertEquals(before, after);
        assertEquals("rw-------", permissions("dev-tokens.properties"));
        assertEquals("rw-------", permissions("tokens.yaml"));
    }

    @Test
    void aDevTokenEditedShorterThanTheIngestServiceAcceptsIsReplaced() throws IOException {
        Map<String, String> before = DevTokens.ensure(dataDir);
        Files.writeString(dataDir.resolve("dev-tokens.properties"), "alice=short\nbob=" + before.get("bob")
                + "\nops=" + before.get("ops") + "\n");

        Map<String, String> after = DevTokens.ensure(dataDir);

        assertNotEquals("short", after.get("alice"));
        assertTrue(after.get("alice").length() >= Tokens.MIN_TOKEN_LENGTH);
        assertEquals(before.get("bob"), after.get("bob"));
    }
}
