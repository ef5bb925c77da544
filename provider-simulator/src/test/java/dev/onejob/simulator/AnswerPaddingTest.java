package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class AnswerPaddingTest {

    private static SimRequest request(String userText, JsonNode schema) {
        return new SimRequest(Protocol.OPENAI_CHAT, "m", null, "sys", userText, "sys\n" + userText, schema, null,
                SimHttp.MAPPER.createObjectNode(), "sha");
    }

    private static int bytes(JsonNode answer) {
        String text = answer.isTextual() ? answer.asText() : Json.write(answer);
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void aSchemaAnswerGrowsToExactlyTheSizeInItsFirstStringThatMayGrowAndStaysValid() {
        // given the sentiment schema: an enum, then a summary capped at 40 chars, then a list of free strings
        JsonNode schema = SimHttp.sentimentSchema();
        JsonNode answer = AnswerGenerator.answer(request("Great phone.", schema));

        // when
        JsonNode grown = AnswerPadding.toSize(answer, schema, "seed", 100_000);

        // then
        assertEquals(100_000, bytes(grown));
        assertEquals(List.of(), SchemaCheck.violations(schema, grown));
        assertEquals(answer.get("summary"), grown.get("summary"));
        assertTrue(grown.at("/tags/0").asText().startsWith(answer.at("/tags/0").asText() + " "));
        assertEquals(answer.at("/tags/1"), grown.at("/tags/1"));
    }

    @Test
    void stringsBehindRefsAndCombinatorsAreFoundAndPatternedOnesSkipped() {
        // given
        JsonNode schema = SimHttp.json("""
                {"type":"object","$defs":{"note":{"anyOf":[{"type":"null"},{"type":"string"}]}},
                 "properties":{"id":{"type":"string","pattern":"^[a-z0-9-]+$"},
                               "day":{"type":"string","format":"date"},
                               "note":{"$ref":"#/$defs/note"}}}""");
        JsonNode answer = AnswerGenerator.answer(request("hi", schema));

        // when
        JsonNode grown = AnswerPadding.toSize(answer, schema, "seed", 5_000);

        // then
        assertEquals(5_000, bytes(grown));
        assertEquals(answer.get("id"), grown.get("id"));
        assertEquals(answer.get("day"), grown.get("day"));
    }

    @Test
    void anAnswerWithNoStringThatMayGrowComesBackUnchanged() {
        // given
        JsonNode schema = SimHttp.json("""
                {"type":"object","properties":{"mood":{"type":"string","enum":["up","down"]},
                 "short":{"type":"string","maxLength":10},"n":{"type":"integer"}}}""");
        JsonNode answer = AnswerGenerator.answer(request("hi", schema));

        // when
        JsonNode grown = AnswerPadding.toSize(answer, schema, "seed", 5_000);

        // then
        assertSame(answer, grown);
    }

    @Test
    void freeTextGrowsByProseToTheSizeAndALongerAnswerIsLeftAlone() {
        // given
        JsonNode prose = AnswerGenerator.answer(request("hi", null));

        // when
        JsonNode grown = AnswerPadding.toSize(prose, null, "seed", 2_000);
        JsonNode atLeast = AnswerPadding.atLeastChars(prose, null, "seed", 10);

        // then
        assertEquals(2_000, bytes(grown));
        assertTrue(grown.asText().startsWith(prose.asText() + " "));
        assertTrue(grown.asText().chars().allMatch(c -> c >= ' ' && c < 127 && c != '"' && c != '\\'));
        assertSame(prose, atLeast);
    }

    @Test
    void proseIsTheSameForTheSameSeedAndExactlyTheLengthAsked() {
        // when
        String first = Prose.ofLength("a prompt", 777);
        String again = Prose.ofLength("a prompt", 777);
        String other = Prose.ofLength("another prompt", 777);

        // then
        assertEquals(777, first.length());
        assertEquals(first, again);
        assertTrue(!first.equals(other));
        assertEquals("", Prose.ofLength("a prompt", 0));
    }
}
