package dev.onejob.chaos.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckReportTest {

    @Test
    void aCleanReportRendersItsFiguresAsAMarkdownTableAndPasses() {
        CheckReport report = new CheckReport.Builder().figure("intents", 6).figure("anomalies", 0).build();

        String text = report.render();

        assertTrue(report.passed());
        assertTrue(text.startsWith("| figure | value |\n|---|---:|\n| intents | 6 |\n| anomalies | 0 |\n"), text);
        assertTrue(text.contains("No anomalies"), text);
    }

    @Test
    void anomaliesAreCountedPerKindAndListedUpToTwentyEach() {
        CheckReport.Builder builder = new CheckReport.Builder().figure("jobs", 3);
        builder.anomaly(AnomalyKind.STUCK, "job j1", "still RUNNING after the drain");
        for (int i = 1; i <= 25; i++) {
            builder.anomaly(AnomalyKind.DUPLICATE_JOB, "alice/k-" + i, "2 jobs: x, y");
        }
        CheckReport report = builder.build();

        String text = report.render();

        assertFalse(report.passed());
        assertEquals(Map.of(AnomalyKind.DUPLICATE_JOB, 25L, AnomalyKind.STUCK, 1L), report.counts());
        assertTrue(text.contains("| jobs | 3 |"), text);
        assertTrue(text.contains("| duplicate-job | 25 |\n| stuck | 1 |"), text);
        assertTrue(text.contains("| duplicate-job | alice/k-20 | 2 jobs: x, y |"), text);
        assertFalse(text.contains("alice/k-21 "), text);
        assertTrue(text.contains("| duplicate-job | ... | 5 more not shown |"), text);
        assertTrue(text.contains("| stuck | job j1 | still RUNNING after the drain |"), text);
        assertTrue(text.contains("26 anomalies"), text);
    }

    @Test
    void cellsCannotBreakTheTable() {
        CheckReport report = new CheckReport.Builder()
                .anomaly(AnomalyKind.LOST_INTENT, "own|er/key", "line one\nline two").build();

        assertTrue(report.render().contains("| lost-intent | own\\|er/key | line one line two |"), report.render());
    }

    @Test
    void aMissingFigureIsAnError() {
        CheckReport report = new CheckReport.Builder().figure("intents", 1).build();

        assertEquals(1, report.figure("intents"));
        assertThrows(IllegalArgumentException.class, () -> report.figure("jobs"));
    }
}
