package dev.onejob.providers.certify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.certification.Certification;
import dev.onejob.core.certification.CertificationCheck;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** {@link CertificationReport}: its verdict, its text, and the row it becomes. */
class CertificationReportTest {
    private static final String VERSION = "0123456789abcdef".repeat(4);
    private static final Instant STARTED = Instant.parse("2025-03-01T10:00:00Z");

    private static CertificationReport report(boolean tokenizerPassed) {
        return new CertificationReport(UUID.fromString("00000000-0000-0000-0000-000000000001"), "backup",
                "claude-x", "sentiment", VERSION, 3, 3, List.of(
                CertificationCheck.of("structure", true, "9 answers valid", null),
                CertificationCheck.of("tokenizer", tokenizerPassed, tokenizerPassed ? "fits" : "golden[0]: too long",
                        null)), STARTED, STARTED.plusMillis(1500));
    }

    @Test
    void oneFailedCheckFailsTheRunAndTheTextSaysWhich() {
        // given
        CertificationReport report = report(false);
        // when
        String text = report.toText();
        // then
        assertFalse(report.passed());
        assertEquals("""
                certification of backup (model claude-x) for sentiment@0123456789ab: FAILED
                  run 00000000-0000-0000-0000-000000000001, started 2025-03-01T10:00:00Z, took 1.5 s, \
                3 golden input(s) x 3 repetition(s)
                  PASS structure  9 answers valid
                  FAIL tokenizer  golden[0]: too long
                """, text);
    }

    @Test
    void theRowCarriesTheVerdictTheChecksAndTheText() {
        // given
        CertificationReport report = report(true);
        // when
        Certification row = report.toCertification();
        // then
        assertTrue(row.passed());
        assertEquals(report.checks(), row.checks());
        assertEquals(report.toText(), row.report());
        assertEquals(VERSION, row.contractVersion());
        assertEquals(List.of(), row.failedChecks());
    }
}
