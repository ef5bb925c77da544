package dev.onejob.ingest.http;

import dev.onejob.core.ledger.LedgerQueries;
import dev.onejob.ingest.Principal;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The query parameters of the read endpoints ({@link FindApi}, {@link UsageApi}): a name the endpoint does not take
 * is refused, not ignored, so a typo never reads as "no filter"; each value is parsed or refused with a 400 that says
 * what it must be; an owner other than the caller's own is for operators only.
 */
final class QueryParameters {
    private static final int DEFAULT_LIMIT = 50;

    private QueryParameters() {
    }

    /** The owner to list: the caller's own, or for an operator every owner unless {@code owner} names one. */
    static String owner(Principal caller, Map<String, String> query) {
        String owner = blankToNull(query.get("owner"));
        if (!caller.may(Principal.OPERATE)) {
            if (owner != null && !owner.equals(caller.ownerId())) {
                throw Problem.forbidden("only operators may read another owner's jobs, attempts or usage ('owner'"
                        + " needs the 'operate' role)");
            }
            return caller.ownerId();
        }
        return owner;
    }

    static void allowOnly(Map<String, String> query, String... names) {
        List<String> allowed = Arrays.asList(names);
        for (String name : query.keySet()) {
            if (!allowed.contains(name)) {
                throw badRequest("unknown query parameter '" + name + "'" + (allowed.isEmpty()
                        ? "; this resource takes none" : "; allowed: " + String.join(", ", allowed)));
            }
        }
    }

    static int limit(Map<String, String> query) {
        return limit(query, DEFAULT_LIMIT, LedgerQueries.MAX_LIMIT);
    }

    /** {@code limit}: {@code otherwise} when absent, else a whole number from 1 to {@code max}. */
    static int limit(Map<String, String> query, int otherwise, int max) {
        String text = query.get("limit");
        if (text == null) {
            return otherwise;
        }
        try {
            int limit = Integer.parseInt(text);
            if (limit >= 1 && limit <= max) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw badRequest("'limit' must be a whole number from 1 to " + max);
    }

    static String cursor(Map<String, String> query) {
        String cursor = blankToNull(query.get("cursor"));
        if (cursor != null && !LedgerQueries.validCursor(cursor)) {
            throw badRequest("'cursor' is not one this server gave out: send back a page's next_cursor as it was");
        }
        return cursor;
    }

    static Instant time(Map<String, String> query, String name) {
        String text = blankToNull(query.get(name));
        if (text == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            throw badRequest("'" + name + "' must be an RFC 3339 time such as 2026-12-04T10:15:30Z");
        }
    }

    static Duration duration(Map<String, String> query, String name) {
        String text = blankToNull(query.get(name));
        if (text == null) {
            return Duration.ZERO;
        }
        try {
            Duration value = text.chars().allMatch(Character::isDigit) && text.length() <= 9
                    ? Duration.ofSeconds(Long.parseLong(text)) : Duration.parse(text);
            if (!value.isNegative()) {
                return value;
            }
        } catch (DateTimeParseException e) {
            // refused below
        }
        throw badRequest("'" + name + "' must be a duration: seconds (300) or ISO 8601 (PT5M)");
    }

    static <E extends Enum<E>> E parseEnum(Class<E> type, String name, String text) {
        try {
            return Enum.valueOf(type, text);
        } catch (IllegalArgumentException e) {
            throw badRequest("'" + name + "' must be one of " + Arrays.toString(type.getEnumConstants())
                    + ", not '" + text + "'");
        }
    }

    static Problem badRequest(String detail) {
        return new Problem(400, "bad-request", "Bad request", detail);
    }

    static String blankToNull(String text) {
        return text == null || text.isEmpty() ? null : text;
    }
}
