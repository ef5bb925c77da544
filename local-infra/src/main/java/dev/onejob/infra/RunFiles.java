package dev.onejob.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The files the services of a harness run read, written under the run's directory:
 * <ul>
 *   <li>{@code tokens.yaml}: one fresh random token per submitting owner (role {@code submit}) and one operator
 *       (role {@code operate}); only their SHA-256 is written there, the tokens stay with the run
 *       ({@link #token(String)}) and, when asked, in {@code tokens.properties} for a load generator; both files
 *       are owner-only ({@link OwnerOnlyFile});</li>
 *   <li>{@code providers.yaml}: {@code primary} on the OpenAI wire and {@code backup} on the Anthropic wire, at the
 *       run's simulators ({@code SIM_PRIMARY_URL}, {@code SIM_BACKUP_URL}), with the run's timeouts and API keys
 *       from {@code PRIMARY_API_KEY} / {@code BACKUP_API_KEY}, at the shipped prices (the simulators bill the
 *       same, so the chaos run's billing check compares equal costs).</li>
 * </ul>
 * The contracts are the project's own, {@code config/contracts} under the repository root.
 */
public final class RunFiles {
    /** A provider's soft timeout (UNKNOWN after it) and hard timeout (the call is abandoned). */
    public record Timeouts(Duration soft, Duration hard) {
    }

    private final Path dir;
    private final Path contractsDir;
    private final String operator;
    private final Map<String, String> tokens = new LinkedHashMap<>();

    private RunFiles(Path dir, Path root, String operator) {
        this.dir = dir;
        this.contractsDir = root.resolve("config/contracts");
        this.operator = operator;
    }

    /**
     * Writes the files. Tokens look like {@code <tokenPrefix>-<owner>-<32 hex>}; {@code plainTokens} also writes
     * them in clear to {@code tokens.properties} (owner=token), for a separate load-generator process.
     */
    public static RunFiles write(Path dir, Path root, String tokenPrefix, List<String> owners, String operator,
                                 Timeouts primary, Timeouts backup, boolean plainTokens) {
        RunFiles files = new RunFiles(dir, root, operator);
        StringBuilder yaml = new StringBuilder("tokens:\n");
        StringBuilder plain = new StringBuilder();
        for (String owner : owners) {
            files.add(tokenPrefix, owner, "submit", yaml, plain);
        }
        files.add(tokenPrefix, operator, "operate", yaml, plain);
        try {
            Files.createDirectories(dir);
            OwnerOnlyFile.write(files.tokensFile(), yaml.toString());
            if (plainTokens) {
                OwnerOnlyFile.write(files.plainTokensFile(), plain.toString());
            }
            Files.writeString(files.providersFile(), """
                    providers:
                      - {id: primary, protocol: openai-chat, base_url: '${SIM_PRIMARY_URL}', model: gpt-4o-mini,
                         api_key_env: PRIMARY_API_KEY, soft_timeout: %dms, hard_timeout: %dms,
                         prices: {input: 0.15, output: 0.60, cached_input: 0.075}}
                      - {id: backup, protocol: anthropic-messages, base_url: '${SIM_BACKUP_URL}',
                         model: claude-sonnet-4-5, api_key_env: BACKUP_API_KEY, soft_timeout: %dms, hard_timeout: %dms,
                         prices: {input: 3.00, output: 15.00, cached_input: 0.30}}
                    """.formatted(primary.soft().toMillis(), primary.hard().toMillis(), backup.soft().toMillis(),
                    backup.hard().toMillis()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the run's config files under " + dir, e);
        }
        return files;
    }

    private void add(String prefix, String owner, String role, StringBuilder yaml, StringBuilder plain) {
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        String token = prefix + "-" + owner + "-" + HexFormat.of().formatHex(random);
        tokens.put(owner, token);
        yaml.append("  - owner: ").append(owner).append("\n    roles: [").append(role).append("]\n    sha256: ")
                .append(sha256Hex(token)).append('\n');
        plain.append(owner).append('=').append(token).append('\n');
    }

    /** The hash the ingest service's tokens file holds: lower-case hex SHA-256 of the token's UTF-8 bytes. */
    public static String sha256Hex(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    public Path tokensFile() {
        return dir.resolve("tokens.yaml");
    }

    public Path plainTokensFile() {
        return dir.resolve("tokens.properties");
    }

    public Path providersFile() {
        return dir.resolve("providers.yaml");
    }

    public Path contractsDir() {
        return contractsDir;
    }

    /** The token of an owner or of the operator. */
    public String token(String owner) {
        return tokens.get(owner);
    }

    /** The submitting owners' tokens, in order (not the operator's). */
    public Map<String, String> submitterTokens() {
        Map<String, String> submitters = new LinkedHashMap<>(tokens);
        submitters.remove(operator);
        return submitters;
    }

    public String operatorToken() {
        return tokens.get(operator);
    }
}
