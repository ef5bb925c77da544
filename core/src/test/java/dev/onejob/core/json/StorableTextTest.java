package dev.onejob.core.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StorableTextTest {

    @Test
    void ordinaryTextIncludingEmojiAndRtlIsStorable() {
        assertEquals(Optional.empty(), StorableText.problem("Très bien 東京 😀 مرحبا"));
    }

    @Test
    void nulAndUnpairedSurrogatesAreNamedWithTheirPath() {
        assertTrue(StorableText.problem(Json.parse("{\"a\":[\"x\",\"y\\u0000\"]}")).orElseThrow().startsWith("$.a[1]"));
        assertTrue(StorableText.problem("a\ud800b").orElseThrow().contains("D800"));
        assertTrue(StorableText.problem("\udc00").orElseThrow().contains("DC00"));
        assertTrue(StorableText.problem(Json.parse("{\"k\\u0000\":1}")).orElseThrow().contains("field name"));
    }

    @Test
    void theEscapedFormIsStorableAndAsJsonTextParsesBackToTheSameValue() {
        ObjectNode answer = Json.object();
        answer.put("summary", "a" + (char) 0 + "b" + (char) 0xD800 + "c 😀");
        String written = Json.write(answer);

        String escaped = StorableText.escape(written);

        assertEquals(Optional.empty(), StorableText.problem(escaped));
        assertEquals(answer, Json.parse(escaped));
        assertEquals("plain 😀", StorableText.escape("plain 😀"));
        assertEquals("x\\udc00y", StorableText.escape("x" + (char) 0xDC00 + "y"));
    }
}
