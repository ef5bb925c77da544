package dev.onejob.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.onejob.core.json.Json;
import org.junit.jupiter.api.Test;

class RaceLineTest {
    private static final String HASH = "3f2a9c1b7d4e5f60718293a4b5c6d7e8f90123456789abcdef0123456789abcd";

    @Test
    void aRaceLineNamesTimeJobLoserWinnerReasonAndTheHashPrefix() {
        // given a race-audit record in which attempt #2 on backup beat attempt #1 on primary
        var record = Json.parse("""
                {"job_id": "0b5d2c7e-0000-4000-8000-000000000001", "owner_id": "alice",
                 "winning_attempt": {"attempt_id": "a2", "number": 2, "provider": "backup",
                                     "started_at": null, "completed_at": null},
                 "losing_attempt": {"attempt_id": "a1", "number": 1, "provider": "primary",
                                    "started_at": null, "completed_at": null},
                 "reason": "attempt-cancelled", "discarded_result_sha256": "%s",
                 "detected_at": "2025-06-01T12:00:03.123Z"}""".formatted(HASH));

        // when it is formatted
        String line = RaceLine.format(record);

        // then one line holds all of it
        assertEquals("2025-06-01T12:00:03.123Z  job 0b5d2c7e-0000-4000-8000-000000000001  lost #1 primary"
                + "  won #2 backup  attempt-cancelled  sha256 3f2a9c1b7d4e...", line);
    }

    @Test
    void aRaceNobodyWonSaysNone() {
        // given a record of a cancelled job: no attempt had won
        var record = Json.parse("""
                {"job_id": "j", "winning_attempt": null, "reason": "job-cancelled",
                 "losing_attempt": {"number": 1, "provider": "primary"}, "discarded_result_sha256": "%s",
                 "detected_at": "t"}""".formatted(HASH));

        // when / then
        assertEquals("t  job j  lost #1 primary  won none  job-cancelled  sha256 3f2a9c1b7d4e...",
                RaceLine.format(record));
    }
}
