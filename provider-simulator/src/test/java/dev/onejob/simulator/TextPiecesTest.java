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

    @Test
    void aLongTextWithManyWordBreaksStillMakesAtMostTheMaximumNumberOfPieces() {
        // given prose whose 16-char windows would end early at spaces
        String prose = Prose.ofLength("seed", TextPieces.MAX_PIECE * TextPieces.MAX_PIECES - 1);

        // when
        List<String> pieces = TextPieces.split(prose);

        // then
        assertTrue(pieces.size() <= TextPieces.MAX_PIECES, pieces.size() + " pieces");
        assertEquals(prose, String.join("", pieces));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 5, 7, 150})
    void splitIntoMakesExactlyThatManyPiecesOfNearlyEqualLength(int count) {
        // given
        String text = Prose.ofLength("seed", 1000);

        // when
        List<String> pieces = TextPieces.splitInto(text, count);

        // then
        assertEquals(count, pieces.size());
        assertEquals(text, String.join("", pieces));
        int shortest = pieces.stream().mapToInt(String::length).min().orElseThrow();
        int longest = pieces.stream().mapToInt(String::length).max().orElseThrow();
        assertTrue(longest - shortest <= 1, shortest + ".." + longest);
    }

    @Test
    void splitIntoNeverSplitsASurrogatePairAndLeavesPiecesEmptyOnlyWhenTheTextIsShort() {
        // when
        List<String> emoji = TextPieces.splitInto("😀".repeat(10), 7);
        List<String> shortText = TextPieces.splitInto("abc", 5);

        // then
        assertEquals(7, emoji.size());
        for (String piece : emoji) {
            assertFalse(piece.isEmpty());
            assertFalse(Character.isHighSurrogate(piece.charAt(piece.length() - 1)), piece);
        }
        assertEquals("abc", String.join("", shortText));
        assertEquals(5, shortText.size());
        assertEquals(2, shortText.stream().filter(String::isEmpty).count());
    }
}
