package dev.onejob.launcher;

import dev.onejob.infra.OwnerOnlyFile;
import dev.onejob.ingest.Tokens;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The local stack's dev tokens: created once under the data directory (the tokens themselves in
 * {@code dev-tokens.properties}, only their SHA-256 in {@code tokens.yaml}, which the ingest service reads) and
 * reused by later starts. Both files are owner-only ({@code rw-------}, {@link OwnerOnlyFile}) on a POSIX file
 * system.
 */
final class DevTokens {
    static final String[][] CALLERS = {{"alice", "submit"}, {"bob", "submit"}, {"ops", "operate"}};

    private DevTokens() {
    }

    /** Owner -> token, creating the files when they do not exist yet. */
    static Map<String, String> ensure(Path dataDir) {
        Path plain = dataDir.resolve("dev-tokens.properties");
        Path hashed = dataDir.resolve("tokens.yaml");
        try {
            Files.createDirectories(dataDir);
            Properties tokens = new Properties();
            if (Files.exists(plain)) {
                try (var in = Files.newBufferedReader(plain)) {
                    tokens.load(in);
                }
            }
            StringBuilder yaml = new StringBuilder("# Written by ./onejob dev: SHA-256 of the dev tokens in "
                    + "dev-tokens.properties.\ntokens:\n");
            Map<String, String> byOwner = new LinkedHashMap<>();
            for (String[] caller : CALLERS) {
                String token = tokens.getProperty(caller[0]);
                // One edited by hand to fewer characters than the ingest service accepts is replaced.
                if (token == null || token.length() < Tokens.MIN_TOKEN_LENGTH) {
                    token = "dev-" + caller[0] + "-" + random();
                    tokens.setProperty(caller[0], token);
                }
                byOwner.put(caller[0], token);
                yaml.append("  - owner: ").append(caller[0]).append("\n    roles: [").append(caller[1])
                        .append("]\n    sha256: ").append(Tokens.sha256Hex(token)).append('\n');
            }
            StringWriter text = new StringWriter();
            tokens.store(text, "dev tokens for ./onejob dev (local use only)");
            // Rewritten at every start, so a file left readable by others by an older version is tightened too.
            OwnerOnlyFile.write(plain, text.toString());
            OwnerOnlyFile.write(hashed, yaml.toString());
            return byOwner;
        } catch (IOException e) {
            throw new StartupException("cannot write dev tokens under " + dataDir + ": " + e.getMessage()
                    + " (set ONEJOB_DATA_DIR to a writable directory)");
        }
    }

    static Path tokensFile(Path dataDir) {
        return dataDir.resolve("tokens.yaml");
    }

    private static String random() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
