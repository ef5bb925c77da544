package dev.onejob.chaos;

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
 * The configuration files of a chaos run, written under its directory: the tokens file (six submitting owners and
 * one operator; only hashes are written, the tokens stay in memory), and the providers file (primary on the OpenAI
 * wire, backup on the Anthropic wire, both simulators, with the run's soft and hard timeouts). The contracts are the
 * project's own ({@code config/contracts}).
 */
final class ChaosFiles {
    static final List<String> OWNERS = List.of("chaos-a", "chaos-b", "chaos-c", "chaos-d", "chaos-e", "chaos-f");
    static final String OPERATOR = "chaos-ops";
    static final String API_KEY = "sk-onejob-chaos";

    private final Path dir;
    private final Path contractsDir;
    private final Map<String, String> tokens = new LinkedHashMap<>();

    ChaosFiles(Path dir, Path root) {
        this.dir = dir;
        this.contractsDir = root.resolve("config/contracts");
        try {
            Files.createDirectories(dir);
            StringBuilder yaml = new StringBuilder("tokens:\n");
            for (String owner : OWNERS) {
                add(owner, "submit", yaml);
            }
            add(OPERATOR, "operate", yaml);
            Files.writeString(tokensFile(), yaml);
            Files.writeString(providersFile(), """
                    providers:
                      - {id: primary, protocol: openai-chat, base_url: '${SIM_PRIMARY_URL}', model: gpt-4o-mini,
                         api_key_env: PRIMARY_API_KEY, soft_timeout: %1$dms, hard_timeout: %2$dms}
                      - {id: backup, protocol: anthropic-messages, base_url: '${SIM_BACKUP_URL}',
                         model: claude-sonnet-4-5, api_key_env: BACKUP_API_KEY, soft_timeout: %1$dms, hard_timeout: %2$dms}
                    """.formatted(ChaosSettings.SOFT_TIMEOUT.toMillis(), ChaosSettings.HARD_TIMEOUT.toMillis()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the chaos run's config files under " + dir, e);
        }
    }

    private void add(String owner, String role, StringBuilder yaml) {
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        String token = "chaos-" + owner + "-" + HexFormat.of().formatHex(random);
        tokens.put(owner, token);
        yaml.append("  - owner: ").append(owner).append("\n    roles: [").append(role).append("]\n    sha256: ")
                .append(Tokens.sha256Hex(token)).append('\n');
    }

    Path tokensFile() {
        return dir.resolve("tokens.yaml");
    }

    Path providersFile() {
        return dir.resolve("providers.yaml");
    }

    Path contractsDir() {
        return contractsDir;
    }

    String token(String owner) {
        return tokens.get(owner);
    }
}
