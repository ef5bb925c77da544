package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class TokenCounterTest {

    private static SimRequest request(String promptText, JsonNode body) {
        return new SimRequest(Protocol.ANTHROPIC_COUNT_TOKENS, "m", null, "", promptText, promptText, null, null,
                body, "sha");
    }

    @Test
    void countIsUtf8BytesDividedByFourRoundedUp() {
        // given 9 bytes of ASCII, and 2 + 2 + 1 bytes for "é", "ü", "!"
        TokenCounter counter = new TokenCounter(1.0, 0);

        // when
        long ascii = counter.inputTokens(request("123456789", SimHttp.MAPPER.createObjectNode()));
        long accented = counter.inputTokens(request("éü!", SimHttp.MAPPER.createObjectNode()));

        // then
        assertEquals(3, ascii);
        assertEquals(2, accented);
    }

    @Test
    void toolSchemasCountToo() {
        // given
        ObjectNode body = SimHttp.MAPPER.createObjectNode();
        body.putArray("tools").addObject().put("name", "t");
        long toolBytes = body.get("tools").toString().length();
        TokenCounter counter = new TokenCounter(1.0, 0);

        // when
        long tokens = counter.inputTokens(request("abcd", body));

        // then
        assertEquals((4 + toolBytes + 3) / 4, tokens);
    }

    @Test
    void adjustmentMultipliesThenAddsAndNeverGoesNegative() {
        // given
        TokenCounter counter = new TokenCounter(1.0, 0);
        SimRequest eightTokens = request("x".repeat(32), SimHttp.MAPPER.createObjectNode());

        // when
        counter.adjust(1000.0, 5);
        long inflated = counter.inputTokens(eightTokens);
        counter.adjust(1.0, -100);
        long floored = counter.inputTokens(eightTokens);

        // then
        assertEquals(8005, inflated);
        assertEquals(0, floored);
        assertThrows(IllegalArgumentException.class, () -> counter.adjust(-1, 0));
    }
}
