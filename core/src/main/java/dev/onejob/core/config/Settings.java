package dev.onejob.core.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Reads settings from the environment (or any map of the same shape), the one way every service parses them: an
 * unset or blank variable takes its documented default; a set one must parse and lie in its range, or the read
 * throws {@link ConfigException} with a message that names the variable, the value and what is allowed, which the
 * service's main prints before exiting with status 2.
 */
public final class Settings {
    private final Map<String, String> env;

    private Settings(Map<String, String> env) {
        this.env = env;
    }

    public static Settings of(Map<String, String> env) {
        return new Settings(env);
    }

    /** The raw value, trimmed, or empty when unset or blank. */
    public Optional<String> raw(String name) {
        String value = env.get(name);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    public String text(String name, String fallback) {
        return raw(name).orElse(fallback);
    }

    /** A whole number in {@code [min, max]}. */
    public int integer(String name, int fallback, int min, int max) {
        Optional<String> raw = raw(name);
        if (raw.isEmpty()) {
            return fallback;
        }
        int value;
        try {
            value = Integer.parseInt(raw.get());
        } catch (NumberFormatException e) {
            throw new ConfigException(name + " must be a whole number from " + min + " to " + max + ", got '"
                    + raw.get() + "'");
        }
        if (value < min || value > max) {
            throw new ConfigException(name + " must be from " + min + " to " + max + ", got " + value);
        }
        return value;
    }

    /** {@code true} or {@code false} (any case); anything else is refused rather than read as false. */
    public boolean flag(String name, boolean fallback) {
        Optional<String> raw = raw(name);
        if (raw.isEmpty()) {
            return fallback;
        }
        if (raw.get().equalsIgnoreCase("true")) {
            return true;
        }
        if (raw.get().equalsIgnoreCase("false")) {
            return false;
        }
        throw new ConfigException(name + " must be true or false, got '" + raw.get() + "'");
    }

    /** A duration like {@code 500ms}, {@code 30s}, {@code 5m}, {@code 168h}, in {@code [min, max]}. */
    public Duration duration(String name, Duration fallback, Duration min, Duration max) {
        Optional<String> raw = raw(name);
        if (raw.isEmpty()) {
            return fallback;
        }
        Duration value = ConfigFiles.parseDuration(raw.get()).orElseThrow(() -> new ConfigException(name
                + " must be a duration like 500ms, 30s, 5m or 168h, got '" + raw.get() + "'"));
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new ConfigException(name + " must be from " + format(min) + " to "
                    + format(max) + ", got " + raw.get());
        }
        return value;
    }

    /** A duration as {@link #duration}, or empty when unset, blank or {@code off}. */
    public Optional<Duration> optionalDuration(String name, Duration min, Duration max) {
        Optional<String> raw = raw(name);
        if (raw.isEmpty() || raw.get().equalsIgnoreCase("off")) {
            return Optional.empty();
        }
        return Optional.of(duration(name, Duration.ZERO, min, max));
    }

    /** A file or directory path (not checked for existence: the file's loader says what is missing). */
    public Path path(String name, String fallback) {
        String value = text(name, fallback);
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            throw new ConfigException(name + " must be a file path, got '" + value + "': " + e.getReason());
        }
    }

    /** The shortest of {@code Nh}, {@code Nm}, {@code Ns}, {@code Nms} that says {@code d} exactly. */
    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
