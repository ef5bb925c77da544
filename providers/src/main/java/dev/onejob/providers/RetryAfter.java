package dev.onejob.providers;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads when a provider that refused a call asks to be tried again, from the headers real providers send, in this
 * order: {@code retry-after-ms} (OpenAI: milliseconds), {@code Retry-After} (RFC 9110: seconds or an HTTP date), and
 * the rate-limit reset headers (OpenAI's {@code x-ratelimit-reset-requests} / {@code -tokens} as durations like
 * {@code 6m0s}; Anthropic's {@code anthropic-ratelimit-*-reset} as RFC 3339 instants), of which the latest counts:
 * which limit was hit is not said, and waiting for the earlier one would likely be refused again.
 *
 * <p>Pure: the caller passes the time now. A value that does not parse, or lies in the past, is no hint.
 */
final class RetryAfter {
    private static final List<String> OPENAI_RESETS = List.of("x-ratelimit-reset-requests", "x-ratelimit-reset-tokens");
    private static final List<String> ANTHROPIC_RESETS = List.of("anthropic-ratelimit-requests-reset",
            "anthropic-ratelimit-tokens-reset", "anthropic-ratelimit-input-tokens-reset",
            "anthropic-ratelimit-output-tokens-reset");
    /** OpenAI's durations: {@code 1h2m3.5s}, {@code 6m0s}, {@code 250ms}, {@code 1s}. */
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|h|m|s)");
    /** A hint this long is a mistake, not a wait: a day. */
    private static final Duration MAX_HINT = Duration.ofDays(1);

    private RetryAfter() {
    }

    /** The provider's hint, or empty when its headers say nothing usable. */
    static Optional<Duration> of(HttpHeaders headers, Instant now) {
        Optional<Duration> millis = headers.firstValue("retry-after-ms").flatMap(RetryAfter::millis);
        if (millis.isPresent()) {
            return millis;
        }
        Optional<Duration> retryAfter = headers.firstValue("retry-after").flatMap(v -> retryAfter(v, now));
        if (retryAfter.isPresent()) {
            return retryAfter;
        }
        Optional<Duration> latest = Optional.empty();
        for (String name : OPENAI_RESETS) {
            latest = later(latest, headers.firstValue(name).flatMap(RetryAfter::openAiDuration));
        }
        for (String name : ANTHROPIC_RESETS) {
            latest = later(latest, headers.firstValue(name).flatMap(v -> instant(v, now)));
        }
        return latest;
    }

    static Optional<Duration> millis(String value) {
        try {
            double ms = Double.parseDouble(value.strip());
            return bounded(ms >= 0 && Double.isFinite(ms) ? Duration.ofNanos((long) (ms * 1_000_000)) : null);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** RFC 9110: {@code delay-seconds} or an HTTP date. */
    static Optional<Duration> retryAfter(String value, Instant now) {
        String text = value.strip();
        try {
            double seconds = Double.parseDouble(text);
            return bounded(seconds >= 0 && Double.isFinite(seconds)
                    ? Duration.ofMillis((long) (seconds * 1000)) : null);
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                return bounded(at.isAfter(now) ? Duration.between(now, at) : null);
            } catch (DateTimeParseException notDate) {
                return Optional.empty();
            }
        }
    }

    static Optional<Duration> openAiDuration(String value) {
        String text = value.strip();
        Matcher parts = PART.matcher(text);
        long nanos = 0;
        int end = 0;
        while (parts.find() && parts.start() == end) {
            double amount = Double.parseDouble(parts.group(1));
            long unit = switch (parts.group(2)) {
                case "h" -> 3_600_000_000_000L;
                case "m" -> 60_000_000_000L;
                case "s" -> 1_000_000_000L;
                default -> 1_000_000L;
            };
            nanos += (long) (amount * unit);
            end = parts.end();
        }
        return end == 0 || end != text.length() ? Optional.empty() : bounded(Duration.ofNanos(nanos));
    }

    static Optional<Duration> instant(String value, Instant now) {
        try {
            Instant at = OffsetDateTime.parse(value.strip()).toInstant();
            return bounded(at.isAfter(now) ? Duration.between(now, at) : null);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static Optional<Duration> bounded(Duration hint) {
        return hint == null || hint.compareTo(MAX_HINT) > 0 ? Optional.empty() : Optional.of(hint);
    }

    private static Optional<Duration> later(Optional<Duration> a, Optional<Duration> b) {
        if (a.isEmpty()) {
            return b;
        }
        return b.isPresent() && b.get().compareTo(a.get()) > 0 ? b : a;
    }
}
