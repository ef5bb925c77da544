package dev.onejob.providers.certify;

import static dev.onejob.providers.certify.ChecksFixture.answered;
import static dev.onejob.providers.certify.ChecksFixture.violated;
import static dev.onejob.providers.certify.CertifyFixture.SENTIMENT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.certification.CertificationCheck;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link StructureCheck} on given outcomes: valid and as expected in every repetition, or failed with where. */
class StructureCheckTest {
    private static final String POSITIVE = "{\"sentiment\":\"positive\",\"summary\":\"s\"}";
    private static final String NEGATIVE = "{\"sentiment\":\"negative\",\"summary\":\"s\"}";

    private static List<GoldenCall> goodRepetition(int repetition) {
        return new ArrayList<>(List.of(answered(0, repetition, POSITIVE), answered(1, repetition, NEGATIVE),
                answered(2, repetition, POSITIVE)));
    }

    @Test
    void expectedAnswersInEveryRepetitionPass() {
        // given
        List<GoldenCall> calls = new ArrayList<>();
        for (int repetition = 1; repetition <= 3; repetition++) {
            calls.addAll(goodRepetition(repetition));
        }
        // when
        CertificationCheck check = StructureCheck.check(SENTIMENT, calls);
        // then
        assertTrue(check.passed(), check::summary);
        assertEquals("9 answers (3 golden inputs x 3) valid and as expected", check.summary());
    }

    @Test
    void aValidAnswerWithTheWrongExpectedValueFailsNamingInputAndRepetition() {
        // given golden[1] expects negative; repetition 2 says positive
        List<GoldenCall> calls = goodRepetition(1);
        calls.addAll(List.of(answered(0, 2, POSITIVE), answered(1, 2, POSITIVE), answered(2, 2, POSITIVE)));
        // when
        CertificationCheck check = StructureCheck.check(SENTIMENT, calls);
        // then
        assertFalse(check.passed());
        assertEquals("1 of 6 answers failed; first: golden[1] repetition 2 of 3: sentiment is \"positive\", expected "
                + "\"negative\"; answer " + POSITIVE, check.summary());
        assertEquals(2, check.evidence().get("failures").get(0).get("repetition").asInt());
    }

    @Test
    void aContractViolationFailsWithTheOffendingAnswerAsEvidence() {
        // given
        List<GoldenCall> calls = goodRepetition(1);
        calls.set(2, violated(2, 1, "{\"summary\":\"s\"}"));
        // when
        CertificationCheck check = StructureCheck.check(SENTIMENT, calls);
        // then
        assertFalse(check.passed());
        assertEquals("{\"summary\":\"s\"}", check.evidence().get("failures").get(0).get("answer").asText());
        assertEquals("golden[2]", check.evidence().get("failures").get(0).get("input").asText());
    }
}
