package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TextPiecesTest {

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"sentiment\":\"positive\",\"summary\":\"sim-1a2b3c4d\",\"score\":4,\"tags\":[\"sim-9f8e7d6c\"]}",
        "Sure! The sentiment is positive.",
        "x",
        "no-breaks-at-all-in-this-rather-long-single-word-text",
        "😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀",
        "abc\ud800def"})
    void piecesJoinToExactlyTheTextAndStayWithinTheirSize(String text) {
        // when
        List<String> pieces = TextPieces.split(text);

        // then
        assertEquals(text, String.join("", pieces));
        for (String piece : pieces) {
            assertFalse(piece.isEmpty());
            assertTrue(piece.length() <= TextPieces.MAX_PIECE + 1, piece);
        }
    }

    @Test
    void aJsonAnswerComesInSeveralPiecesEndingAfterPunctuation() {
        // when
        List<String> pieces = TextPieces.split("{\"sentiment\":\"positive\",\"summary\":\"sim-1a2b3c4d\",\"score\":4}");

        // then
        assertEquals(List.of("{\"sentiment\":", "\"positive\",", "\"summary\":", "\"sim-1a2b3c4d\",",
                "\"score\":4}"), pieces);
    }

    @Test
    void aSurrogatePairIsNeverSplit() {
        // when
        List<String> pieces = TextPieces.split("😀".repeat(20));

        // then
        for (String piece : pieces) {
            assertFalse(Character.isHighSurrogate(piece.charAt(piece.length() - 1)), piece);
            assertFalse(Character.isLowSurrogate(piece.charAt(0)), piece);
        }
    }

    @Test
    void aHugeTextIsCutIntoAtMostTheMaximumNumberOfPieces() {
        // given
        String huge = "x".repeat(2 * 1024 * 1024);

        // when
        List<String> pieces = TextPieces.split(huge);

        // then
        assertEquals(TextPieces.MAX_PIECES, pieces.size());
        assertEquals(huge, String.join("", pieces));
    }

    @Test
    void anEmptyTextHasNoPieces() {
        assertEquals(List.of(), TextPieces.split(""));
    }
}
