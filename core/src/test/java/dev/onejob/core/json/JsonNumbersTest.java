package dev.onejob.core.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Numbers a job can mean pass; absurd exponents are refused before anything spells them out. */
class JsonNumbersTest {

    @Test
    void everyDoubleAndOrdinaryDecimalsAndLongIntegersPass() {
        for (String number : new String[] {"0", "-0.0", "1.5", "1e308", "-1.7976931348623157e308", "4.9e-324",
                "123456789012345678901234567890", "0.000001"}) {
            assertEquals(Optional.empty(), JsonNumbers.problem(Json.parse("{\"n\":" + number + "}")), number);
        }
    }

    @Test
    void absurdExponentsEitherWayAreNamedWithTheirPath() {
        assertTrue(JsonNumbers.problem(Json.parse("{\"a\":[1,1e5000000]}")).orElseThrow().startsWith("$.a[1]"));
        assertTrue(JsonNumbers.problem(Json.parse("{\"a\":-1e-9999}")).orElseThrow().contains("-9999"));
        assertTrue(JsonNumbers.problem(Json.parse("1e401")).isPresent());
    }

    @Test
    void theCanonicalFormRefusesAnAbsurdNumberInsteadOfSpellingItOut() {
        long started = System.nanoTime();

        assertThrows(IllegalArgumentException.class, () -> CanonicalJson.canonicalize(Json.parse("{\"n\":1e5000000}")));

        assertTrue(System.nanoTime() - started < 1_000_000_000L, "refused at once, not after spelling it out");
        assertEquals("{\"n\":100}", CanonicalJson.canonicalize(Json.parse("{\"n\":1e2}")),
                "bounded numbers keep their canonical form, so stored fingerprints stay valid");
    }
}
