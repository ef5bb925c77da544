package dev.onejob.core.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reading the files users edit (providers, contracts, tokens): YAML or JSON, with errors that name the file and
 * the line, or the field path, and say what was expected. {@code ${VAR}} and {@code ${VAR:-default}} in string
 * values are replaced from the environment.
 */
public final class ConfigFiles {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Pattern ENV_REF = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

    private ConfigFiles() {
    }

    /**
     * A configuration file made of named top-level sections: its root mapping, or empty when the file is absent or
     * empty (the caller's defaults hold); a root that is not a mapping, or a section not in {@code sections}, fails
     * naming the file and what was expected.
     */
    public static Optional<JsonNode> sections(Path file, List<String> sections) {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        JsonNode root = read(file);
        if (root == null || root.isNull()) {
            return Optional.empty();
        }
        String all = String.join(", ", sections.subList(0, sections.size() - 1));
        String last = sections.get(sections.size() - 1);
        if (!root.isObject()) {
            throw new ConfigException(file + ": expected a mapping with " + all + " and " + last);
        }
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!sections.contains(name)) {
                throw new ConfigException(file + ": '" + name + "' is not a section; expected " + all + " or "
                        + last);
            }
        }
        return Optional.of(root);
    }

    public static JsonNode read(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException(file + ": file not found");
        }
        return parsed(file.toString(), () -> YAML.readTree(file.toFile()));
    }

    /** YAML (or JSON) from a stream, such as a classpath resource; {@code shown} names it in errors. */
    public static JsonNode read(InputStream in, String shown) {
        return parsed(shown, () -> YAML.readTree(in));
    }

    /** One read of YAML. */
    private interface Reading {
        JsonNode read() throws IOException;
    }

    /** What {@code reading} parsed; a refusal naming {@code shown} (with the line and column of a syntax error). */
    private static JsonNode parsed(String shown, Reading reading) {
        try {
            return reading.read();
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr();
            throw new ConfigException(shown + where + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ConfigException(shown + ": cannot read (" + e.getMessage() + ")");
        }
    }

    /** A required string field, with environment references resolved. */
    public static String string(Path file, JsonNode node, String path, String field, Map<String, String> env) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new ConfigException(file + ": " + path + "." + field + " is required");
        }
        if (!value.isTextual() && !value.isNumber()) {
            throw new ConfigException(file + ": " + path + "." + field + " must be a string");
        }
        return resolveEnv(file, path + "." + field, value.asText(), env);
    }

    public static String optionalString(Path file, JsonNode node, String path, String field, Map<String, String> env) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : string(file, node, path, field, env);
    }

    /**
     * Refuses a {@code node} that is not a mapping, or that holds a key other than {@code keys}; {@code entry} names
     * what one key is in the message (e.g. {@code a retry setting}) and {@code note} follows the expected keys.
     */
    public static void requireMappingOf(Path file, JsonNode node, String path, List<String> keys, String entry,
                                        String note) {
        if (!node.isObject()) {
            throw new ConfigException(file + ": " + path + " must be a mapping with " + listed(keys, " and "));
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!keys.contains(name)) {
                throw new ConfigException(file + ": " + path + "." + name + " is not " + entry + "; expected "
                        + listed(keys, " or ") + note);
            }
        }
    }

    /** {@code a, b and c}, with {@code last} before the last key. */
    private static String listed(List<String> keys, String last) {
        return String.join(", ", keys.subList(0, keys.size() - 1)) + last + keys.get(keys.size() - 1);
    }

    public static int positiveInt(Path file, JsonNode node, String path, String field, Integer fallback) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return fallbackOrRequired(file, path, field, fallback);
        }
        if (!value.canConvertToInt() || !value.isIntegralNumber() || value.asInt() < 1) {
            throw new ConfigException(file + ": " + path + "." + field + " must be a positive whole number, got "
                    + value);
        }
        return value.asInt();
    }

    /** Durations as users write them: {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}. */
    public static Duration duration(Path file, JsonNode node, String path, String field, Duration fallback) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return fallbackOrRequired(file, path, field, fallback);
        }
        return parseDuration(value.asText()).orElseThrow(() -> new ConfigException(file + ": " + path + "." + field
                + " must be a duration like 500ms, 10s, 2m or 1h, got '" + value.asText() + "'"));
    }

    /** What an absent field means: {@code fallback}, or, when there is none, a refusal naming the field. */
    private static <T> T fallbackOrRequired(Path file, String path, String field, T fallback) {
        if (fallback == null) {
            throw new ConfigException(file + ": " + path + "." + field + " is required");
        }
        return fallback;
    }

    public static Optional<Duration> parseDuration(String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            return Optional.empty();
        }
        long amount = Long.parseLong(m.group(1));
        return Optional.of(switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
        });
    }

    private static String resolveEnv(Path file, String path, String text, Map<String, String> env) {
        Matcher m = ENV_REF.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = env.get(m.group(1));
            if (value == null) {
                value = m.group(2);
            }
            if (value == null) {
                throw new ConfigException(file + ": " + path + " refers to ${" + m.group(1)
                        + "}, which is not set (set it, or write ${" + m.group(1) + ":-default})");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }
}
