package dev.onejob.launcher.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.launcher.cli.RaceAuditFeed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's records on {@code race-audit}, read from the beginning with a read_committed consumer (so only what the
 * outbox relay committed). Waits for the first, then keeps reading a second longer so a duplicate would show.
 */
final class RaceAuditRecords {
    private static final Duration SETTLE = Duration.ofSeconds(1);

    private RaceAuditRecords() {
    }

    static List<JsonNode> forJob(String bootstrapServers, String jobId, Duration timeout) {
        List<JsonNode> found = new ArrayList<>();
        try (RaceAuditFeed feed = RaceAuditFeed.open(bootstrapServers, true, Duration.ofSeconds(15))) {
            long deadline = System.nanoTime() + timeout.toNanos();
            long settleUntil = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(deadline, settleUntil)) {
                for (RaceAuditFeed.Race race : feed.poll(Duration.ofMillis(200))) {
                    if (jobId.equals(race.jobId())) {
                        found.add(race.record());
                    }
                }
                if (!found.isEmpty() && settleUntil == Long.MAX_VALUE) {
                    settleUntil = System.nanoTime() + SETTLE.toNanos();
                }
            }
        }
        return found;
    }
}
