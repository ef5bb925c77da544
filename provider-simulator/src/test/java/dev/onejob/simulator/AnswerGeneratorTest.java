package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AnswerGeneratorTest {

    private static SimRequest request(String userText, JsonNode schema) {
        return new SimRequest(Protocol.OPENAI_CHAT, "m", null, "sys", userText, "sys\n" + userText, schema, null,
                SimHttp.MAPPER.createObjectNode(), "sha");
    }

    @Test
    void answerConformsToTheSchemaAndEmitsOptionalPropertiesToo() {
        // given
        JsonNode schema = SimHttp.sentimentSchema();

        // when
        JsonNode answer = AnswerGenerator.answer(request("Great phone, I love it.", schema));

        // then
        assertEquals(List.of(), SchemaCheck.violations(schema, answer));
        assertEquals(List.of("sentiment", "summary", "score", "tags", "flagged", "details"), fieldNames(answer));
        assertTrue(answer.at("/details/language").isTextual());
        assertEquals(2, answer.get("tags").size());
    }

    @Test
    void enumValueNamedInTheUserPromptIsChosen() {
        // given
        JsonNode schema = SimHttp.sentimentSchema();

        // when
        JsonNode negative = AnswerGenerator.answer(request("Overall NEGATIVE, sadly.", schema));
        JsonNode neutral = AnswerGenerator.answer(request("I'd call it neutral.", schema));

        // then
        assertEquals("negative", negative.get("sentiment").asText());
        assertEquals("neutral", neutral.get("sentiment").asText());
    }

    @Test
    void enumValueInsideAnotherWordIsNotAMatch() {
        // given a prompt with "positively" and "nonneutral" but neither value as a word
        JsonNode schema = SimHttp.json("""
                {"type":"object","properties":{"v":{"type":"string","enum":["positive","neutral"]}}}""");
        Set<String> seen = new HashSet<>();

        // when
        for (int i = 0; i < 40; i++) {
            seen.add(AnswerGenerator.answer(request("positively nonneutral " + i, schema)).get("v").asText());
        }

        // then both values occur, so the choice came from the hash and not from a substring match
        assertEquals(Set.of("positive", "neutral"), seen);
    }

    @Test
    void samePromptGivesTheSameAnswerAndAnotherPromptAnotherString() {
        // given
        JsonNode schema = SimHttp.sentimentSchema();

        // when
        JsonNode first = AnswerGenerator.answer(request("A review.", schema));
        JsonNode again = AnswerGenerator.answer(request("A review.", schema));
        JsonNode other = AnswerGenerator.answer(request("Another review.", schema));

        // then
        assertEquals(first, again);
        assertNotEquals(first.get("summary"), other.get("summary"));
    }

    @Test
    void numbersStayWithinInclusiveAndExclusiveBounds() {
        // given
        JsonNode schema = SimHttp.json("""
                {"type":"object","properties":{
                  "i":{"type":"integer","exclusiveMinimum":10,"exclusiveMaximum":13},
                  "n":{"type":"number","minimum":0.5,"exclusiveMaximum":0.6},
                  "only_max":{"type":"integer","maximum":-50}}}""");

        for (int i = 0; i < 50; i++) {
            // when
            JsonNode answer = AnswerGenerator.answer(request("prompt " + i, schema));

            // then
            assertTrue(answer.get("i").asLong() == 11 || answer.get("i").asLong() == 12, answer.toString());
            assertTrue(answer.get("n").asDouble() >= 0.5 && answer.get("n").asDouble() < 0.6, answer.toString());
            assertTrue(answer.get("only_max").asLong() <= -50, answer.toString());
        }
    }

    @Test
    void stringsArePaddedOrCutToTheirLengthLimits() {
        // given
        JsonNode schema = SimHttp.json("""
                {"type":"object","properties":{
                  "long":{"type":"string","minLength":30},
                  "short":{"type":"string","maxLength":3}}}""");

        // when
        JsonNode answer = AnswerGenerator.answer(request("x", schema));

        // then
        assertEquals(30, answer.get("long").asText().length());
        assertTrue(answer.get("long").asText().startsWith("sim-"));
        assertEquals("sim", answer.get("short").asText());
    }

    @Test
    void refsConstsAndNullableTypesAreFollowed() {
        // given
        JsonNode schema = SimHttp.json("""
                {"type":"object","$defs":{"Label":{"type":"string","enum":["spam","ham"]}},
                 "properties":{
                   "label":{"$ref":"#/$defs/Label"},
                   "version":{"const":2},
                   "note":{"type":["null","string"]},
                   "choice":{"anyOf":[{"type":"null"},{"type":"integer","minimum":7,"maximum":7}]}}}""");

        // when
        JsonNode answer = AnswerGenerator.answer(request("this is spam", schema));

        // then
        assertEquals("spam", answer.get("label").asText());
        assertEquals(2, answer.get("version").asInt());
        assertTrue(answer.get("note").asText().startsWith("sim-"));
        assertEquals(7, answer.get("choice").asInt());
    }

    @Test
    void requestWithoutSchemaGetsProseNotJson() {
        // when
        JsonNode answer = AnswerGenerator.answer(request("hello", null));

        // then
        assertTrue(answer.isTextual(), answer.toString());
        assertTrue(answer.asText().matches("Here is the simulated answer sim-[0-9a-f]{8}\\. [A-Z][A-Za-z ,.]+"),
                answer.asText());
        assertEquals(answer, AnswerGenerator.answer(request("hello", null)), "the same prompt, the same prose");
        assertNotEquals(answer, AnswerGenerator.answer(request("hello again", null)));
    }

    @Test
    void freeTextReplacesStringsButNotEnumValues() {
        // when
        JsonNode answer = AnswerGenerator.answerWithFreeText(request("positive", SimHttp.sentimentSchema()),
                "free text value");

        // then
        assertEquals("positive", answer.get("sentiment").asText());
        assertEquals("free text value", answer.get("summary").asText());
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
