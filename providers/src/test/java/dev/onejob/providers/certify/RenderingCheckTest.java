package dev.onejob.providers.certify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.contract.Contract;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link RenderingCheck}: every golden input must fill every slot. */
class RenderingCheckTest {

    private static String contract(String user, String golden) {
        return """
                id: greeting
                prompt:
                  system: Answer in JSON.
                  user: "%s"
                variables_schema:
                  type: object
                  properties:
                    text: {type: string}
                    tone: {type: string}
                output_schema:
                  type: object
                  properties:
                    reply: {type: string}
                golden:
                  - variables: %s
                """.formatted(user, golden);
    }

    @Test
    void theSentimentContractsGoldenInputsRender() {
        // given / when
        CertificationCheck check = RenderingCheck.check(CertifyFixture.SENTIMENT);
        // then
        assertTrue(check.passed(), check::summary);
        assertEquals("3 golden inputs render with every slot filled", check.summary());
    }

    @Test
    void aGoldenInputWithoutAValueForASlotFails(@TempDir Path dir) {
        // given tone is optional in the schema but used by the template
        Contract contract = ChecksFixture.contract(dir, contract("{{text}} in a {{tone}} tone", "{text: hi}"));
        // when
        CertificationCheck check = RenderingCheck.check(contract);
        // then
        assertFalse(check.passed());
        assertEquals("golden[0]: the template slot {{tone}} has no value", check.summary());
    }

    @Test
    void slotSyntaxTheTemplateDoesNotRecogniseFails(@TempDir Path dir) {
        // given {{ 1st }} is not a slot name, so rendering leaves it in the prompt
        Contract contract = ChecksFixture.contract(dir, contract("{{text}} {{ 1st }}", "{text: hi}"));
        // when
        CertificationCheck check = RenderingCheck.check(contract);
        // then
        assertFalse(check.passed());
        assertEquals("golden[0]: the rendered prompt still holds {{ 1st }}", check.summary());
    }

    @Test
    void bracesThatComeFromTheInputItselfAreNotASlot(@TempDir Path dir) {
        // given
        Contract contract = ChecksFixture.contract(dir, contract("{{text}}", "{text: 'use {{name}} here'}"));
        // when
        CertificationCheck check = RenderingCheck.check(contract);
        // then
        assertTrue(check.passed(), check::summary);
    }
}
