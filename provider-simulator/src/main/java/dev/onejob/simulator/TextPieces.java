package dev.onejob.simulator;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts an answer's text into the pieces a streamed answer delivers one by one, roughly as a model's tokens come.
 *
 * <p>Consumes a text; produces pieces whose concatenation is exactly that text. {@link #split}: a piece is at most
 * {@value #MAX_PIECE} chars and ends, where it can, just after a space or JSON punctuation once it holds
 * {@value #MIN_PIECE}; a text that would make more than {@value #MAX_PIECES} such pieces (a {@code large_answer}, an
 * {@code oversize} poison answer) is cut into {@value #MAX_PIECES} pieces of equal length instead, so a stream stays
 * a few hundred events however large its answer.
 * {@link #splitInto}: exactly the number of pieces asked for ({@code paced}). A surrogate pair is never split.
 * Deterministic; owns nothing.
 */
final class TextPieces {

    static final int MIN_PIECE = 4;
    static final int MAX_PIECE = 16;
    static final int MAX_PIECES = 256;

    private TextPieces() {
    }

    /** The pieces of {@code text}, none empty; none at all for an empty text. */
    static List<String> split(String text) {
        if (text.length() > MAX_PIECE * MAX_PIECES) {
            return splitInto(text, MAX_PIECES);
        }
        List<String> pieces = new ArrayList<>();
        int start = 0;
        while (start < text.length()) {
            int end = Math.min(text.length(), start + MAX_PIECE);
            if (end < text.length()) {
                end = breakBefore(text, start, end);
            }
            pieces.add(text.substring(start, end));
            start = end;
        }
        // Pieces ending at word breaks are shorter than MAX_PIECE, so a text of nearly the limit can make too many.
        return pieces.size() > MAX_PIECES ? splitInto(text, MAX_PIECES) : pieces;
    }

    /**
     * Exactly {@code count} pieces of {@code text}, their lengths differing by at most one (two where a surrogate
     * pair would otherwise be split); some are empty when the text has fewer than {@code count} chars.
     */
    static List<String> splitInto(String text, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be >= 1, was " + count);
        }
        List<String> pieces = new ArrayList<>(count);
        int start = 0;
        for (int i = 1; i <= count; i++) {
            int end = (int) ((long) text.length() * i / count);
            if (end > start && end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))
                    && Character.isLowSurrogate(text.charAt(end))) {
                end++;
            }
            end = Math.max(start, end);
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
