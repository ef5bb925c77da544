package dev.onejob.core.ledger;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyKeyTest {

    @ParameterizedTest
    @ValueSource(strings = {"a", "order-42:retry", " spaces are printable ", "~!@#$%^&*()"})
    void printableAsciiKeysAreAccepted(String key) {
        assertTrue(IdempotencyKey.problem(key).isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "tab\there", "new\nline", "caf\u00e9", "\u0000", "\u007f"})
    void emptyControlAndNonAsciiKeysAreRefusedWithAReason(String key) {
        assertFalse(IdempotencyKey.problem(key).isEmpty());
    }

    @Test
    void lengthLimitIs255() {
        assertTrue(IdempotencyKey.problem("k".repeat(255)).isEmpty());
        assertTrue(IdempotencyKey.problem("k".repeat(256)).orElseThrow().contains("256"));
    }
}
