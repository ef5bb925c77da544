package dev.onejob.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.billing.Prices;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The providers file ({@code PROVIDERS_FILE}, default {@code config/providers.yaml}), validated at startup:
 * <pre>
 * providers:
 *   - id: primary
 *     protocol: openai-chat          # or anthropic-messages
 *     base_url: https://api.openai.com
 *     model: gpt-4o-mini
 *     api_key_env: OPENAI_API_KEY
 *     tokenizer: o200k_base
 *     context_window: 128000
 *     soft_timeout: 10s              # to the answer; for a stream, to its first piece and between pieces
 *     hard_timeout: 120s             # when the call is given up: no answer, or a stream silent that long
 *     max_duration: 1h               # optional: a streamed answer as a whole
 *     retry:                         # optional: definite refusals (408, 429, 503, 529, not sent) retried here
 *       max_attempts: 4              #   attempts on this provider in all, before failover
 *       initial_backoff: 1s          #   doubled per retry, unless the provider says when (Retry-After, ...)
 *       max_backoff: 60s
 *     max_answer_bytes: 8388608      # optional: the largest answer stored (a call's max_tokens may allow more)
 *     max_tokens_field: max_tokens   # optional, openai-chat: or max_completion_tokens (reasoning models)
 *     cooldown:                      # optional: after more than allowed_fails refusals within window, new jobs
 *       allowed_fails: 3             #   with a certified fallback start there, for duration after the last one
 *       window: 1m
 *       duration: 1m
 *     prices:                        # optional: USD per million tokens
 *       input: 0.15
 *       output: 0.60
 *       cached_input: 0.075          # optional, default = input
 * aliases:                           # optional: the model names of the provider-compatible endpoints
 *   fast: [primary, backup]          # the target, then the fallbacks (each used only when certified)
 * </pre>
 */
public final class Providers {
    private final Map<String, ProviderConfig> byId;
    private final Map<String, Route> aliases;

    /**
     * What a model alias names: the provider a call goes to first, and the ones it may fail over to, in order. A
     * fallback is used only when certified for the call's contract.
     */
    public record Route(String target, List<String> fallbacks) {
        public Route {
            fallbacks = List.copyOf(fallbacks);
        }
    }

    private Providers(Map<String, ProviderConfig> byId, Map<String, Route> aliases) {
        this.byId = byId;
        this.aliases = aliases;
    }

    public static Providers load(Path file, Map<String, String> env) {
        JsonNode root = ConfigFiles.read(file);
        JsonNode list = root == null ? null : root.get("providers");
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw new ConfigException(file + ": expected a non-empty list under 'providers:'");
        }
        Map<String, ProviderConfig> byId = new LinkedHashMap<>();
        for (int i = 0; i < list.size(); i++) {
            ProviderConfig provider = parse(file, list.get(i), "providers[" + i + "]", env);
            if (byId.putIfAbsent(provider.id(), provider) != null) {
                throw new ConfigException(file + ": providers[" + i + "].id '" + provider.id() + "' is used twice");
            }
        }
        return new Providers(byId, aliases(file, root.get("aliases"), byId));
    }

    public static Providers of(Collection<ProviderConfig> providers) {
        Map<String, ProviderConfig> byId = new LinkedHashMap<>();
        providers.forEach(p -> byId.put(p.id(), p));
        return new Providers(byId, Map.of());
    }

    /** {@code aliases:}: each name maps to a list of provider ids, the target first. */
    private static Map<String, Route> aliases(Path file, JsonNode node, Map<String, ProviderConfig> byId) {
        Map<String, Route> aliases = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return aliases;
        }
        if (!node.isObject()) {
            throw new ConfigException(file + ": 'aliases' must be a mapping of model names to lists of provider ids");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> alias = it.next();
            String path = "aliases." + alias.getKey();
            if (!alias.getKey().matches("[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}")) {
                throw new ConfigException(file + ": " + path + ": an alias is 1 to 128 letters, digits or . _ : / -");
            }
            JsonNode list = alias.getValue();
            if (!list.isArray() || list.isEmpty()) {
                throw new ConfigException(file + ": " + path + " must be a non-empty list of provider ids, the "
                        + "target first");
            }
            List<String> chain = new ArrayList<>();
            for (JsonNode id : list) {
                if (!id.isTextual() || !byId.containsKey(id.asText())) {
                    throw new ConfigException(file + ": " + path + ": '" + id.asText() + "' is not a provider of "
                            + "this file");
                }
                if (chain.contains(id.asText())) {
                    throw new ConfigException(file + ": " + path + ": '" + id.asText() + "' is listed twice");
                }
                chain.add(id.asText());
            }
            aliases.put(alias.getKey(), new Route(chain.get(0), chain.subList(1, chain.size())));
        }
        return aliases;
    }

    /** The route a model alias names, as the provider-compatible endpoints use it. */
    public Optional<Route> alias(String model) {
        return Optional.ofNullable(aliases.get(model));
    }

    /** Every alias, in the file's order. */
    public Map<String, Route> aliases() {
        return Collections.unmodifiableMap(aliases);
    }

    private static ProviderConfig parse(Path file, JsonNode node, String path, Map<String, String> env) {
        if (node == null || !node.isObject()) {
            throw new ConfigException(file + ": " + path + " must be a mapping with id, protocol, base_url, ...");
        }
        String id = ConfigFiles.string(file, node, path, "id", env);
        if (!id.matches("[a-z0-9][a-z0-9_-]{0,62}")) {
            throw new ConfigException(file + ": " + path + ".id '" + id + "' must be lowercase letters, digits, - or _");
        }
        String protocolName = ConfigFiles.string(file, node, path, "protocol", env);
        ProviderProtocol protocol = ProviderProtocol.fromWireName(protocolName).orElseThrow(() ->
                new ConfigException(file + ": " + path + ".protocol '" + protocolName
                        + "' is not one of openai-chat, anthropic-messages"));
        String baseUrl = ConfigFiles.string(file, node, path, "base_url", env);
        URI uri;
        try {
            uri = URI.create(baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file + ": " + path + ".base_url '" + baseUrl + "' is not a URL");
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
            throw new ConfigException(file + ": " + path + ".base_url must start with http:// or https://");
        }
        Duration soft = ConfigFiles.duration(file, node, path, "soft_timeout", Duration.ofSeconds(10));
        Duration hard = ConfigFiles.duration(file, node, path, "hard_timeout", Duration.ofSeconds(120));
        if (hard.compareTo(soft) < 0) {
            throw new ConfigException(file + ": " + path + ".hard_timeout (" + hard + ") must not be shorter than "
                    + "soft_timeout (" + soft + ")");
        }
        Duration maxDuration = ConfigFiles.duration(file, node, path, "max_duration",
                hard.compareTo(ProviderConfig.DEFAULT_MAX_DURATION) > 0 ? hard : ProviderConfig.DEFAULT_MAX_DURATION);
        if (maxDuration.compareTo(hard) < 0) {
            throw new ConfigException(file + ": " + path + ".max_duration (" + maxDuration + ") must not be shorter "
                    + "than hard_timeout (" + hard + ")");
        }
        int maxAnswerBytes = ConfigFiles.positiveInt(file, node, path, "max_answer_bytes",
                ProviderConfig.DEFAULT_MAX_ANSWER_BYTES);
        if (maxAnswerBytes > ProviderConfig.ANSWER_BYTES_LIMIT) {
            throw new ConfigException(file + ": " + path + ".max_answer_bytes must be at most "
                    + ProviderConfig.ANSWER_BYTES_LIMIT + " (what the topics carry), was " + maxAnswerBytes);
        }
        String tokenizer = ConfigFiles.optionalString(file, node, path, "tokenizer", env);
        String maxTokensField = maxTokensField(file, node, path, protocol);
        return new ProviderConfig(id, protocol, uri, ConfigFiles.string(file, node, path, "model", env),
                ConfigFiles.optionalString(file, node, path, "api_key_env", env),
                tokenizer == null ? (protocol == ProviderProtocol.OPENAI_CHAT ? "o200k_base" : "anthropic") : tokenizer,
                ConfigFiles.positiveInt(file, node, path, "context_window", 128_000), soft, hard,
                prices(file, node.get("prices"), path + ".prices"), maxDuration,
                retry(file, node.get("retry"), path + ".retry"), maxAnswerBytes,
                cooldown(file, node.get("cooldown"), path + ".cooldown"), maxTokensField);
    }

    /** {@code max_tokens} unless the file says {@code max_completion_tokens}, which only OpenAI's protocol has. */
    private static String maxTokensField(Path file, JsonNode node, String path, ProviderProtocol protocol) {
        String field = ConfigFiles.optionalString(file, node, path, "max_tokens_field", Map.of());
        if (field == null || field.equals(ProviderConfig.MAX_TOKENS)) {
            return ProviderConfig.MAX_TOKENS;
        }
        if (!field.equals(ProviderConfig.MAX_COMPLETION_TOKENS) || protocol != ProviderProtocol.OPENAI_CHAT) {
            throw new ConfigException(file + ": " + path + ".max_tokens_field must be max_tokens, or "
                    + "max_completion_tokens for an openai-chat provider; was '" + field + "'");
        }
        return field;
    }

    private static Cooldown cooldown(Path file, JsonNode node, String path) {
        if (node == null || node.isNull()) {
            return Cooldown.DEFAULT;
        }
        ConfigFiles.requireMappingOf(file, node, path, List.of("allowed_fails", "window", "duration"),
                "a cool-down setting", "");
        JsonNode fails = node.get("allowed_fails");
        if (fails != null && (!fails.isIntegralNumber() || !fails.canConvertToInt() || fails.asInt() < 0)) {
            throw new ConfigException(file + ": " + path + ".allowed_fails must be a whole number, 0 or more, got "
                    + fails);
        }
        Cooldown fallback = Cooldown.DEFAULT;
        try {
            return new Cooldown(fails == null ? fallback.allowedFails() : fails.asInt(),
                    ConfigFiles.duration(file, node, path, "window", fallback.window()),
                    ConfigFiles.duration(file, node, path, "duration", fallback.duration()));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file + ": " + path + ": " + e.getMessage());
        }
    }

    private static RetryPolicy retry(Path file, JsonNode node, String path) {
        if (node == null || node.isNull()) {
            return RetryPolicy.DEFAULT;
        }
        ConfigFiles.requireMappingOf(file, node, path, List.of("max_attempts", "initial_backoff", "max_backoff"),
                "a retry setting", "");
        RetryPolicy fallback = RetryPolicy.DEFAULT;
        int attempts = ConfigFiles.positiveInt(file, node, path, "max_attempts", fallback.maxAttempts());
        Duration initial = ConfigFiles.duration(file, node, path, "initial_backoff", fallback.initialBackoff());
        Duration max = ConfigFiles.duration(file, node, path, "max_backoff", fallback.maxBackoff());
        try {
            return new RetryPolicy(attempts, initial, max);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file + ": " + path + ": " + e.getMessage());
        }
    }

    private static Prices prices(Path file, JsonNode node, String path) {
        if (node == null || node.isNull()) {
            return null;
        }
        ConfigFiles.requireMappingOf(file, node, path, List.of("input", "output", "cached_input"), "a price",
                " (US dollars per million tokens)");
        BigDecimal input = price(file, node, path, "input");
        BigDecimal output = price(file, node, path, "output");
        BigDecimal cached = node.has("cached_input") ? price(file, node, path, "cached_input") : input;
        return new Prices(input, output, cached);
    }

    private static BigDecimal price(Path file, JsonNode node, String path, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isNumber() || value.decimalValue().signum() < 0) {
            throw new ConfigException(file + ": " + path + "." + field + " must be a number of US dollars per million"
                    + " tokens, 0 or more");
        }
        return value.decimalValue();
    }

    public Optional<ProviderConfig> find(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    public Collection<ProviderConfig> all() {
        return byId.values();
    }
}
