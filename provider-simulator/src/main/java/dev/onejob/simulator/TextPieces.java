package dev.onejob.simulator;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts an answer's text into the pieces a streamed answer delivers one by one, roughly as a model's tokens come.
 *
 * <p>Consumes a text; produces pieces whose concatenation is exactly that text. A piece is at most
 * {@value #MAX_PIECE} chars and ends, where it can, just after a space or JSON punctuation once it holds
 * {@value #MIN_PIECE}; a very long text (an {@code oversize} poison answer) gets longer pieces, so no answer
 * makes more than {@value #MAX_PIECES}. A surrogate pair is never split. Deterministic; owns nothing.
 */
final class TextPieces {

    static final int MIN_PIECE = 4;
    static final int MAX_PIECE = 16;
    static final int MAX_PIECES = 512;

    private TextPieces() {
    }

    /** The pieces of {@code text}, none empty; none at all for an empty text. */
    static List<String> split(String text) {
        int longest = Math.max(MAX_PIECE, (text.length() + MAX_PIECES - 1) / MAX_PIECES);
        List<String> pieces = new ArrayList<>();
        int start = 0;
        while (start < text.length()) {
            int end = Math.min(text.length(), start + longest);
            if (end < text.length()) {
                end = breakBefore(text, start, end);
            }
            pieces.add(text.substring(start, end));
            start = end;
        }
        return pieces;
    }

    /** Where to end a piece that may not reach {@code limit}: after the last break char, never inside a pair. */
    private static int breakBefore(String text, int start, int limit) {
        int end = limit;
        for (int i = limit - 1; i >= start + MIN_PIECE - 1; i--) {
            if (isBreak(text.charAt(i))) {
                end = i + 1;
                break;
            }
        }
        if (Character.isHighSurrogate(text.charAt(end - 1)) && Character.isLowSurrogate(text.charAt(end))) {
            end = end - 1 > start ? end - 1 : end + 1;
        }
        return end;
    }

    private static boolean isBreak(char c) {
        return c == ' ' || c == ',' || c == ':' || c == '\n';
    }
}
