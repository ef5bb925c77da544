package dev.onejob.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.ConfigFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The tokens file ({@code TOKENS_FILE}, default {@code config/tokens.yaml}): bearer tokens, stored as SHA-256
 * hashes, mapped to an owner and roles.
 * <pre>
 * tokens:
 *   - owner: alice
 *     roles: [submit]            # submit, operate
 *     sha256: 3f1c...            # sha256 of the token: printf %s "$TOKEN" | sha256sum
 * </pre>
 * Every lookup compares the presented token's hash with every entry in constant time, so timing does not tell
 * how much of a token was right. A token shorter than {@link #MIN_TOKEN_LENGTH} characters never matches, whatever
 * the file holds: the file has only hashes, so the length is checked where a token is presented. Two entries with
 * the same hash are refused at load, since one token would then name two principals.
 */
public final class Tokens {
    /** The shortest token {@link #authenticate} accepts: a guessable one is refused before it is hashed. */
    public static final int MIN_TOKEN_LENGTH = 16;
    private static final Set<String> ROLES = Set.of(Principal.SUBMIT, Principal.OPERATE);

    private record Entry(byte[] sha256, Principal principal) {
    }

    private final List<Entry> entries;

    private Tokens(List<Entry> entries) {
        this.entries = entries;
    }

    public static Tokens load(Path file) {
        JsonNode root = ConfigFiles.read(file);
        JsonNode list = root == null ? null : root.get("tokens");
        if (list == null || !list.isArray()) {
            throw new ConfigException(file + ": expected a list under 'tokens:'");
        }
        List<Entry> entries = new ArrayList<>();
        Map<String, Integer> indexByHash = new HashMap<>();
        for (int i = 0; i < list.size(); i++) {
            String path = "tokens[" + i + "]";
            JsonNode node = list.get(i);
            String owner = ConfigFiles.string(file, node, path, "owner", Map.of());
            String hash = ConfigFiles.string(file, node, path, "sha256", Map.of()).toLowerCase();
            if (!hash.matches("[0-9a-f]{64}")) {
                throw new ConfigException(file + ": " + path + ".sha256 must be 64 hex characters (the SHA-256 of "
                        + "the token, not the token)");
            }
            Set<String> roles = new LinkedHashSet<>();
            for (JsonNode role : node.path("roles")) {
                if (!ROLES.contains(role.asText())) {
                    throw new ConfigException(file + ": " + path + ".roles has '" + role.asText()
                            + "'; roles are submit and operate");
                }
                roles.add(role.asText());
            }
            Integer first = indexByHash.putIfAbsent(hash, i);
            if (first != null) {
                throw new ConfigException(file + ": " + path + ".sha256 is the same as tokens[" + first + "].sha256 ("
                        + "tokens[" + first + "] owner " + entries.get(first).principal().ownerId() + ", " + path
                        + " owner " + owner + "); one token must name one principal: remove one of the entries");
            }
            entries.add(new Entry(HexFormat.of().parseHex(hash), new Principal(owner, Set.copyOf(roles))));
        }
        return new Tokens(List.copyOf(entries));
    }

    public Optional<Principal> authenticate(String token) {
        if (token == null || token.length() < MIN_TOKEN_LENGTH) {
            return Optional.empty();
        }
        byte[] presented = sha256(token);
        Principal match = null;
        for (Entry entry : entries) {
            // No early exit: every entry is compared, whatever matched.
            if (MessageDigest.isEqual(entry.sha256(), presented)) {
                match = entry.principal();
            }
        }
        return Optional.ofNullable(match);
    }

    public static String sha256Hex(String token) {
        return HexFormat.of().formatHex(sha256(token));
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
