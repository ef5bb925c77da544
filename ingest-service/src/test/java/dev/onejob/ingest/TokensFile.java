package dev.onejob.ingest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The tokens file of an ingest instance under test: one entry per owner, with its roles and its token's SHA-256,
 * written as {@code tokens.yaml} in a temporary directory of its own.
 */
final class TokensFile {
    private final StringBuilder yaml = new StringBuilder("tokens:\n");

    /** An entry; {@code roles} as the file writes them, e.g. {@code [submit, operate]}. */
    TokensFile token(String owner, String roles, String token) {
        yaml.append("  - owner: ").append(owner).append("\n    roles: ").append(roles).append("\n    sha256: ")
                .append(Tokens.sha256Hex(token)).append('\n');
        return this;
    }

    /** Writes the file in a new temporary directory whose name starts with {@code prefix}. */
    Path write(String prefix) throws IOException {
        Path file = Files.createTempDirectory(prefix).resolve("tokens.yaml");
        Files.writeString(file, yaml.toString());
        return file;
    }
}
