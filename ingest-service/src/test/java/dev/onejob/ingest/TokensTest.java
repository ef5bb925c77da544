package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokensTest {
    @TempDir
    Path dir;

    @Test
    void aTokenIsKnownByItsHashAndNamesItsOwnerAndRoles() throws IOException {
        Path file = dir.resolve("tokens.yaml");
        Files.writeString(file, "tokens:\n  - owner: alice\n    roles: [submit, operate]\n    sha256: "
                + Tokens.sha256Hex("s3cret") + "\n");
        Tokens tokens = Tokens.load(file);
        assertEquals(new Principal("alice", Set.of("submit", "operate")), tokens.authenticate("s3cret").orElseThrow());
        assertTrue(tokens.authenticate("s3cret ").isEmpty());
        assertTrue(tokens.authenticate("").isEmpty());
        assertTrue(!Files.readString(file).contains("s3cret"), "the file holds hashes, not tokens");
    }

    @Test
    void aPlainTokenWhereAHashBelongsIsRefusedAtStartup() throws IOException {
        Path file = dir.resolve("tokens.yaml");
        Files.writeString(file, "tokens:\n  - owner: alice\n    roles: [submit]\n    sha256: s3cret\n");
        assertTrue(assertThrows(ConfigException.class, () -> Tokens.load(file)).getMessage().contains("tokens[0].sha256"));
    }

    @Test
    void anUnknownRoleIsRefused() throws IOException {
        Path file = dir.resolve("tokens.yaml");
        Files.writeString(file, "tokens:\n  - owner: a\n    roles: [admin]\n    sha256: " + Tokens.sha256Hex("x") + "\n");
        assertTrue(assertThrows(ConfigException.class, () -> Tokens.load(file)).getMessage().contains("admin"));
    }
}
