package dev.onejob.core.config;

/** A configuration problem, with a message that names the file, line or field, and what was expected. */
public final class ConfigException extends IllegalArgumentException {
    public ConfigException(String message) {
        super(message);
    }
}
