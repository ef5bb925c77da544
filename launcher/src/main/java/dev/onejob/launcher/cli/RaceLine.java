package dev.onejob.launcher.cli;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One lost race as one line for people: when it was detected, the job, the loser's and the winner's attempt number
 * and provider ("none" when no attempt had won), the reason and the start of the discarded result's SHA-256.
 * Consumes a race-audit record ({@code events/race-audit.v2.schema.json}); owns nothing.
 */
public final class RaceLine {
    private RaceLine() {
    }

    /**
     * {@code 2025-06-01T12:00:03.123Z  job 4f1c...  lost #1 primary  won #2 backup  attempt-cancelled  sha256 3f2a...}.
     */
    public static String format(JsonNode race) {
        if (!race.isObject()) {
            return "unreadable race-audit record: " + race.asText();
        }
        return race.path("detected_at").asText("?") + "  job " + race.path("job_id").asText("?")
                + "  lost " + attempt(race.path("losing_attempt"))
                + "  won " + attempt(race.path("winning_attempt"))
                + "  " + race.path("reason").asText("?")
                + "  sha256 " + JobView.prefix(race.path("discarded_result_sha256").asText(""));
    }

    private static String attempt(JsonNode attempt) {
        if (!attempt.isObject()) {
            return "none";
        }
        return "#" + attempt.path("number").asText("?") + " " + attempt.path("provider").asText("?");
    }
}
