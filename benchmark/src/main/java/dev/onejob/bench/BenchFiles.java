package dev.onejob.bench;

import dev.onejob.ingest.Tokens;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The files the run's services read: a tokens file with eight submitting owners and one operator (only SHA-256
 * hashes; the tokens themselves go to the load generator and the peer), and a providers file pointing
 * {@code primary} (openai-chat, soft timeout 1 s, hard 2 s) and {@code backup} (anthropic-messages, 5 s / 10 s) at
 * the run's simulators. Contracts are the project's own, {@code config/contracts}.
 */
final class BenchFiles {
    static final List<String> OWNERS = List.of("bench-0", "bench-1", "bench-2", "bench-3", "bench-4", "bench-5",
            "bench-6", "bench-7");
    static final String OPERATOR = "ops";
    static final String API_KEY = "sk-onejob-bench";
    static final String PRIMARY_SOFT_TIMEOUT = "1s";
    static final String PRIMARY_HARD_TIMEOUT = "2s";

    private final Path dir;
    private final Path contractsDir;
    private final Map<String, String> tokens = new LinkedHashMap<>();

    BenchFiles(Path dir, Path root) {
        this.dir = dir;
        this.contractsDir = root.resolve("config/contracts");
        try {
            Files.createDirectories(dir);
            StringBuilder yaml = new StringBuilder("tokens:\n");
            StringBuilder plain = new StringBuilder();
            for (String owner : OWNERS) {
                add(owner, "submit", yaml, plain);
            }
            add(OPERATOR, "operate", yaml, plain);
            Files.writeString(tokensFile(), yaml);
            Files.writeString(plainTokensFile(), plain);
            Files.writeString(providersFile(), """
                    providers:
                      - {id: primary, protocol: openai-chat, base_url: '${SIM_PRIMARY_URL}', model: gpt-4o-mini,
                         api_key_env: PRIMARY_API_KEY, soft_timeout: %s, hard_timeout: %s}
                      - {id: backup, protocol: anthropic-messages, base_url: '${SIM_BACKUP_URL}',
                         model: claude-sonnet-4-5, api_key_env: BACKUP_API_KEY, soft_timeout: 5s, hard_timeout: 10s}
                    """.formatted(PRIMARY_SOFT_TIMEOUT, PRIMARY_HARD_TIMEOUT));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the benchmark's config files under " + dir, e);
        }
    }

    private void add(String owner, String role, StringBuilder yaml, StringBuilder plain) {
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        String token = "bench-" + owner + "-" + HexFormat.of().formatHex(random);
        tokens.put(owner, token);
        yaml.append("  - owner: ").append(owner).append("\n    roles: [").append(role).append("]\n    sha256: ")
                .append(Tokens.sha256Hex(token)).append('\n');
        plain.append(owner).append('=').append(token).append('\n');
    }

    Path tokensFile() {
        return dir.resolve("tokens.yaml");
    }

    Path plainTokensFile() {
        return dir.resolve("tokens.properties");
    }

    Path providersFile() {
        return dir.resolve("providers.yaml");
    }

    Path contractsDir() {
        return contractsDir;
    }

    /** The submitting owners' tokens (not the operator's). */
    Map<String, String> submitterTokens() {
        Map<String, String> submitters = new LinkedHashMap<>(tokens);
        submitters.remove(OPERATOR);
        return submitters;
    }

    String operatorToken() {
        return tokens.get(OPERATOR);
    }
}
