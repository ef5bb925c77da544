package dev.onejob.core.ledger;

import dev.onejob.core.ledger.LedgerQueries.Page;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * A keyset position in one of {@link LedgerQueries}' lists: the sort time and id of the last row of a page, given to
 * clients as an opaque URL-safe text and taken back to start the next page after it.
 */
record PageCursor(Instant at, UUID id) {
    /** The cursor a client sent back, or empty when it sent none; a cursor that is not ours is refused. */
    static Optional<PageCursor> decode(String text) {
        if (text == null || text.isEmpty()) {
            return Optional.empty();
        }
        String[] parts;
        try {
            parts = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.US_ASCII).split("/", -1);
            if (parts.length == 2) {
                long micros = Long.parseLong(parts[0]);
                return Optional.of(new PageCursor(Instant.EPOCH.plus(micros, ChronoUnit.MICROS),
                        UUID.fromString(parts[1])));
            }
        } catch (IllegalArgumentException e) {
            // falls through to the refusal
        }
        throw new IllegalArgumentException("the cursor is not one this server gave out");
    }

    /** The text of the cursor after the row sorted at {@code at} with {@code id}. */
    static String encode(Instant at, UUID id) {
        long micros = ChronoUnit.MICROS.between(Instant.EPOCH, at);
        return Base64.getUrlEncoder().withoutPadding().encodeToString((micros + "/" + id)
                .getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * The page of {@code rows} read with a limit of {@code limit + 1}: the first {@code limit}, and the cursor after
     * the last of them when there were more.
     */
    static <T> Page<T> page(List<T> rows, int limit, Function<T, String> cursorOf) {
        if (rows.size() <= limit) {
            return new Page<>(rows, null);
        }
        List<T> items = rows.subList(0, limit);
        return new Page<>(List.copyOf(items), cursorOf.apply(items.get(limit - 1)));
    }
}
