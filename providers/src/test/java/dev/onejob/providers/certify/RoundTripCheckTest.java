package dev.onejob.providers.certify;

import static dev.onejob.providers.certify.ChecksFixture.answered;
import static dev.onejob.providers.certify.ChecksFixture.violated;
import static dev.onejob.providers.certify.CertifyFixture.SENTIMENT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.contract.Contract;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link RoundTripCheck}: non-ASCII input text must come back intact in free-text answer fields. */
class RoundTripCheckTest {

    private static CertificationCheck checkSummary(String summary) {
        return RoundTripCheck.check(SENTIMENT, List.of(
                answered(0, 1, "{\"sentiment\":\"positive\",\"summary\":\"ok\"}"),
                answered(2, 1, "{\"sentiment\":\"positive\",\"summary\":" + summary + "}")));
    }

    @Test
    void accentsThatCameBackIntactPass() {
        // given / when
        CertificationCheck check = checkSummary("\"Très bien, merci\"");
        // then
        assertTrue(check.passed(), check::summary);
        assertEquals("non-ASCII text of 1 golden input(s) came back intact in every answer", check.summary());
        assertEquals("Très", check.evidence().get("inputs").get(0).get("non_ascii_words").get(0).asText());
    }

    @Test
    void questionMarksForAccentsFail() {
        // given / when
        CertificationCheck check = checkSummary("\"Text: Tr?s bien, merci.\"");
        // then
        assertFalse(check.passed());
        assertEquals("1 problem(s) with non-ASCII text; first: golden[2] repetition 1 of 3: $.summary holds 'Tr?s' "
                + "where the input had 'Très'", check.summary());
        assertEquals("$.summary", check.evidence().get("failures").get(0).get("field").asText());
    }

    @Test
    void aReplacementCharacterFails() {
        // given / when
        CertificationCheck check = checkSummary("\"Tr\\uFFFD\\uFFFDs\"");
        // then
        assertFalse(check.passed());
        assertTrue(check.summary().contains("holds U+FFFD"), check::summary);
    }

    @Test
    void utf8ReadAsLatin1Fails() {
        // given / when
        CertificationCheck check = checkSummary("\"TrÃ¨s bien\"");
        // then
        assertFalse(check.passed());
        assertTrue(check.summary().contains("holds 'TrÃ¨s' (UTF-8 read as ISO-8859-1)"), check::summary);
    }

    @Test
    void aQuestionMarkThatStandsForNothingPasses() {
        // given / when
        CertificationCheck check = checkSummary("\"Is it good? Très.\"");
        // then
        assertTrue(check.passed(), check::summary);
    }

    @Test
    void enumValuesAreNotFreeText(@TempDir Path dir) {
        // given an enum value that looks like a lossy form of the input's word
        Contract contract = ChecksFixture.contract(dir, """
                id: label
                prompt: {system: Answer in JSON., user: "{{text}}"}
                variables_schema: {type: object, properties: {text: {type: string}}}
                output_schema:
                  type: object
                  properties:
                    label: {enum: ["Tr?s", "other"]}
                golden:
                  - variables: {text: Très}
                """);
        // when
        CertificationCheck check = RoundTripCheck.check(contract, List.of(answered(0, 1, "{\"label\":\"Tr?s\"}")));
        // then
        assertTrue(check.passed(), check::summary);
    }

    @Test
    void anInputWithNonAsciiTextAndNoSuccessfulAnswerFails() {
        // given
        List<GoldenCall> calls = List.of(violated(2, 1, "{}"));
        // when
        CertificationCheck check = RoundTripCheck.check(SENTIMENT, calls);
        // then
        assertFalse(check.passed());
        assertTrue(check.summary().contains("golden[2]: no successful answer to check the non-ASCII text in"),
                check::summary);
    }

    @Test
    void aContractWithOnlyAsciiGoldenInputsPassesAndSaysSo(@TempDir Path dir) {
        // given
        Contract ascii = ChecksFixture.contract(dir, """
                id: plain
                prompt: {system: Answer in JSON., user: "{{text}}"}
                variables_schema: {type: object, properties: {text: {type: string}}}
                output_schema: {type: object, properties: {reply: {type: string}}}
                golden:
                  - variables: {text: hello}
                """);
        // when
        CertificationCheck check = RoundTripCheck.check(ascii, List.of(answered(0, 1, "{\"reply\":\"??\"}")));
        // then
        assertTrue(check.passed());
        assertEquals("not exercised: no golden input has non-ASCII text", check.summary());
    }

    @Test
    void nonAsciiWordsAreTheWordsHoldingANonAsciiCharacter() {
        // given / when
        Set<String> words = RoundTripCheck.nonAsciiWords(ChecksFixture.json(
                "{\"text\":\"Très bien, merci. Ünïcödé!\",\"n\":3,\"list\":[\"日本語 ok\"]}"));
        // then
        assertEquals(List.of("Très", "Ünïcödé", "日本語"), List.copyOf(words));
    }
}
