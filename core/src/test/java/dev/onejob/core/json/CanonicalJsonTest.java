package dev.onejob.core.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class CanonicalJsonTest {

    @Test
    void keysAreSortedAndWhitespaceDropped() {
        String canonical = CanonicalJson.canonicalize(Json.parse("""
                { "b" : 1, "a" : { "z": [3, 2, {"y": true, "x": null}], "c": "é" } }"""));
        assertEquals("{\"a\":{\"c\":\"é\",\"z\":[3,2,{\"x\":null,\"y\":true}]},\"b\":1}", canonical);
    }

    @Test
    void sameMeaningGivesSameFingerprint() {
        String a = CanonicalJson.fingerprint(Json.parse("{\"x\": 1.0, \"y\": [1e2, 0.50]}"));
        String b = CanonicalJson.fingerprint(Json.parse("{\"y\":[100,0.5],\"x\":1}"));
        assertEquals(a, b);
        assertEquals(64, a.length());
    }

    @Test
    void differentValuesOrArrayOrderGiveDifferentFingerprints() {
        String base = CanonicalJson.fingerprint(Json.parse("{\"v\": [1, 2]}"));
        assertNotEquals(base, CanonicalJson.fingerprint(Json.parse("{\"v\": [2, 1]}")));
        assertNotEquals(base, CanonicalJson.fingerprint(Json.parse("{\"v\": [1, \"2\"]}")));
    }

    @Test
    void smallDecimalsStayPlain() {
        assertEquals("{\"v\":0.00001}", CanonicalJson.canonicalize(Json.parse("{\"v\": 1.0E-5}")));
    }
}
