package dev.onejob.ingest.http;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@code wait} preference of RFC 7240 ({@code Prefer: wait=10}): how long a caller would rather wait for its job to
 * finish than be answered with its current state. Other preferences, and a wait that is not a number of seconds, are
 * ignored, as RFC 7240 asks of preferences a server does not understand; the answer's {@code Preference-Applied}
 * says what was honoured.
 */
final class Prefer {
    private Prefer() {
    }

    /** The wait asked for in any of the {@code Prefer} header values, capped at {@code max}; empty if none. */
    static Optional<Duration> waitFor(List<String> preferHeaders, Duration max) {
        if (max.isZero()) {
            return Optional.empty();
        }
        for (String header : preferHeaders) {
            for (String preference : header.split(",")) {
                // A preference is token[=value] followed by ;parameters, which say nothing about waiting.
                String head = preference.split(";", 2)[0].strip();
                int eq = head.indexOf('=');
                if (eq < 0 || !head.substring(0, eq).strip().toLowerCase(Locale.ROOT).equals("wait")) {
                    continue;
                }
                String value = head.substring(eq + 1).strip();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                if (value.isEmpty() || value.length() > 9 || !value.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                Duration asked = Duration.ofSeconds(Long.parseLong(value));
                return Optional.of(asked.compareTo(max) > 0 ? max : asked);
            }
        }
        return Optional.empty();
    }

    /** The {@code Preference-Applied} value for an honoured wait. */
    static String applied(Duration wait) {
        return "wait=" + wait.toSeconds();
    }
}
