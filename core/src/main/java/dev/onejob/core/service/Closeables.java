package dev.onejob.core.service;

import java.util.List;
import java.util.function.BiConsumer;

/**
 * Closing what a component opened, for the {@code close()} of a component whose start may have stopped half way:
 * either each part in the order given, skipping the parts that were never opened (null), a part's exception stopping
 * the closing there as a plain sequence of {@code close()} calls would; or every part of a list, the last first,
 * whatever one of them throws.
 */
public final class Closeables {
    private Closeables() {
    }

    /**
     * Closes each non-null part in order. The parts' {@code close()} throw no checked exception at the call sites
     * this serves; one that does anyway is rethrown wrapped in an {@link IllegalStateException}.
     */
    public static void closeInOrder(AutoCloseable... parts) {
        for (AutoCloseable part : parts) {
            if (part == null) {
                continue;
            }
            try {
                part.close();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("closing " + part + " failed", e);
            }
        }
    }

    /**
     * Closes every part, the last first (the reverse of the order they were started in); a part whose close fails is
     * handed to {@code onFailure} with its exception, and the parts before it still close.
     */
    public static <T extends AutoCloseable> void closeEachInReverse(List<T> parts, BiConsumer<T, Exception> onFailure) {
        for (int i = parts.size() - 1; i >= 0; i--) {
            try {
                parts.get(i).close();
            } catch (Exception e) {
                onFailure.accept(parts.get(i), e);
            }
        }
    }
}
