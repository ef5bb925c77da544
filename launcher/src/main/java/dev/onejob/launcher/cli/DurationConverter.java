package dev.onejob.launcher.cli;

import dev.onejob.core.config.ConfigFiles;
import java.time.Duration;
import picocli.CommandLine;

/** Reads option values like {@code 500ms}, {@code 20s}, {@code 2m}, {@code 1h}, as the providers file writes them. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        return ConfigFiles.parseDuration(value.trim()).orElseThrow(() -> new CommandLine.TypeConversionException(
                "'" + value + "' is not a duration like 500ms, 20s, 2m or 1h"));
    }
}
