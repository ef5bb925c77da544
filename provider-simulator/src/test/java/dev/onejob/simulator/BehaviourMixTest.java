package dev.onejob.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class BehaviourMixTest {
    private static JsonNode spec(String text) {
        try {
            return Json.parse(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static final String SPEC = "{\"kind\":\"mix\",\"share\":0.1,\"then\":{\"kind\":\"status\",\"status\":429,"
            + "\"retry_after_s\":1},\"otherwise\":{\"kind\":\"answer\",\"delay_ms\":0}}";

    @Test
    void aShareOfTheKeysMeetsTheFirstBehaviourAndEachKeyAlwaysTheSame() {
        BehaviourRules rules = new BehaviourRules();
        rules.setDefault(BehaviourJson.parse(spec(SPEC)));
        int refused = 0;
        for (int i = 0; i < 10_000; i++) {
            String key = UUID.randomUUID().toString();
            Behaviour met = rules.resolve(key).behaviour();
            assertEquals(met, rules.resolve(key).behaviour(), "the same key meets the same behaviour");
            if (met instanceof Behaviour.Status status) {
                assertEquals(429, status.status());
                refused++;
            }
        }
        assertTrue(refused > 800 && refused < 1200, refused + " of 10,000 refused, about a tenth expected");
    }

    @Test
    void theSpecReadsBackAndABadShareIsRefused() {
        Behaviour mix = BehaviourJson.parse(spec(SPEC)).behaviour();
        assertEquals(mix, BehaviourJson.parse(BehaviourJson.write(mix, false)).behaviour());
        assertThrows(IllegalArgumentException.class, () -> BehaviourJson.parse(spec(SPEC.replace("0.1", "1.5"))));
        assertThrows(IllegalArgumentException.class, () -> BehaviourJson.parse(spec(
                "{\"kind\":\"mix\",\"share\":0.1,\"then\":{\"kind\":\"answer\"}}")));
    }
}
