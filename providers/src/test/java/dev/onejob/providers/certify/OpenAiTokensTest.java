package dev.onejob.providers.certify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The local OpenAI tokenizers: jtokkit's documented counts, and decoding back to the same text. */
class OpenAiTokensTest {

    @Test
    void cl100kEncodesJtokkitsDocumentedSentenceToItsDocumentedTokens() {
        // given
        OpenAiTokens cl100k = OpenAiTokens.forName("cl100k_base").orElseThrow();
        // when
        List<Integer> tokens = cl100k.encode("This is a sample sentence.").boxed();
        // then: the example of jtokkit's README
        assertEquals(List.of(2028, 374, 264, 6205, 11914, 13), tokens);
        assertEquals(6, cl100k.count("This is a sample sentence."));
    }

    @ParameterizedTest
    @ValueSource(strings = {"o200k_base", "cl100k_base"})
    void nonAsciiTextDecodesBackExactly(String name) {
        // given
        OpenAiTokens encoding = OpenAiTokens.forName(name).orElseThrow();
        String text = "Text: Très bien, merci. Ünïcödé 日本語 👍🏽 and <|endoftext|> as plain text";
        // when
        boolean exact = encoding.decodesExactly(text);
        // then
        assertTrue(exact);
        assertTrue(encoding.count(text) > 10, () -> "counted " + encoding.count(text));
        assertEquals(name, encoding.name());
    }

    @Test
    void anUnknownEncodingNameHasNoTokenizer() {
        // given / when
        Optional<OpenAiTokens> none = OpenAiTokens.forName("anthropic");
        // then
        assertTrue(none.isEmpty());
    }
}
