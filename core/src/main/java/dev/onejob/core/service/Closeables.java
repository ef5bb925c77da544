package dev.onejob.core.service;

/**
 * Closing what a component opened, for the {@code close()} of a component whose start may have stopped half way:
 * each part in the order given, skipping the parts that were never opened (null). A part's exception stops the
 * closing there, as a plain sequence of {@code close()} calls would.
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
}
