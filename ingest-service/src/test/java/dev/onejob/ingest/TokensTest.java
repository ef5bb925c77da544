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
    private static final String TOKEN = "s3cret-0123456789abcdef";

    @TempDir
    Path dir;

    private static String entry(String owner, String roles, String sha256) {
        return "  - owner: " + owner + "\n    roles: " + roles + "\n    sha256: " + sha256 + "\n";
    }

    @Test
    void aTokenIsKnownByItsHashAndNamesItsOwnerAndRoles() throws IOException {
        Path file = dir.resolve("tokens.yaml");
        Files.writeString(file, "tokens:\n" + entry("alice", "[submit, operate]", Tokens.sha256Hex(TOKEN)));
        Tokens tokens = Tokens.load(file);
        assertEquals(new Principal("alice", Set.of("submit", "operate")), tokens.authenticate(TOKEN).orElseThrow());
        assertTrue(tokens.authenticate(TOKEN + " ").isEmpty());
        assertTrue(tokens.authenticate("").isEmpty());
        assertTrue(!Files.readString(file).contains(TOKEN), "the file holds hashes, not tokens");
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

    @Test
    void aHashGivenTwiceIsRefusedNamingBothEntriesAndTheirOwners() throws IOException {
        // given a file where the fourth entry repeats the first one's hash for another owner
        Path file = dir.resolve("tokens.yaml");
        Files.writeString(file, "tokens:\n" + entry("alice", "[submit]", Tokens.sha256Hex(TOKEN))
                + entry("bob", "[submit]", Tokens.sha256Hex("bob-0123456789abcdef"))
                + entry("ops", "[operate]", Tokens.sha256Hex("ops-0123456789abcdef"))
                + entry("mallory", "[submit, operate]", Tokens.sha256Hex(TOKEN).toUpperCase()));

        // when it is loaded
        String message = assertThrows(ConfigException.class, () -> Tokens.load(file)).getMessage();

        // then it is refused, naming both entries and both owners, instead of the last entry silently winning
        for (String part : new String[] {"tokens[0]", "tokens[3]", "alice", "mallory"}) {
            assertTrue(message.contains(part), message);
        }
    }

    @Test
    void aTokenShorterThanTheMinimumNeverMatchesWhateverTheFileSays() throws IOException {
        // given a file holding the hash of a 15-character token, and of a 16-character one
        String tooShort = "a".repeat(Tokens.MIN_TOKEN_LENGTH - 1);
        String longEnough = "b".repeat(Tokens.MIN_TOKEN_LENGTH);
        Path file = dir.resolve("tokens.yaml");
        Files.writeString(file, "tokens:\n" + entry("short", "[submit]", Tokens.sha256Hex(tooShort))
                + entry("long", "[submit]", Tokens.sha256Hex(longEnough)));
        Tokens tokens = Tokens.load(file);

        // then the short one is refused where it is presented, the other is known
        assertEquals(16, Tokens.MIN_TOKEN_LENGTH);
        assertTrue(tokens.authenticate(tooShort).isEmpty(), "a 15-character token must not authenticate");
        assertEquals("long", tokens.authenticate(longEnough).orElseThrow().ownerId());
    }
}
