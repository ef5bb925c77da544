package dev.onejob.launcher.demo;

import static dev.onejob.launcher.demo.DemoContext.hashPrefix;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.launcher.cli.RaceLine;
import dev.onejob.launcher.demo.Scenario.Outcome;
import java.time.Duration;
import java.util.List;

/**
 * 5. The reverse-order finish: the backup (attempt #2) answers first and wins; the primary's answer to attempt #1
 * arrives afterwards and is discarded, never merged, and put on the record: one race-audit record naming the loser,
 * the winner, the reason and the discarded result's SHA-256 (read from the topic, or from the job's attempt when
 * the demo has no Kafka access). Ends the {@link TimeoutStory}.
 */
final class ReverseOrderFinishScenario implements Scenario.Play {
    @Override
    public Outcome run(DemoContext context) {
        TimeoutStory story = context.story();
        if (!story.fallbackStarted) {
            return Outcome.fail("cannot play: scenario 4 did not start the fallback attempt");
        }
        Narrator narrator = context.narrator();
        narrator.say("the backup answers at once; the primary still holds attempt #1's request");
        JsonNode won = context.awaitJob(story.jobId, Duration.ofSeconds(30),
                j -> !j.path("finished_at").isNull());
        narrator.say("the job is " + won.path("status").asText() + " with the result of "
                + (story.backupAttemptId.equals(won.path("completed_by").asText()) ? "attempt #2 (backup)"
                : "attempt " + won.path("completed_by").asText()) + ": " + Json.write(won.path("result")));
        narrator.say("waiting for the primary's late answer to attempt #1 ...");
        Duration lateBy = context.primarySoftTimeout().plus(TimeoutScenario.LATE_BY).plusSeconds(20);
        JsonNode after = context.awaitJob(story.jobId, lateBy,
                j -> "DISCARDED".equals(DemoContext.attempt(j, 1).path("status").asText()));
        JsonNode loser = DemoContext.attempt(after, 1);
        narrator.say("attempt #1 is " + loser.path("status").asText() + ": reason "
                + loser.path("lost_reason").asText("-") + ", discarded result sha256 "
                + hashPrefix(loser.path("discarded_result_sha256").asText(null)) + "; the job still has the backup's"
                + " result");
        Checks checks = new Checks();
        checks.check(DemoContext.hasStatus(won, "SUCCEEDED"), "the job SUCCEEDED");
        checks.check(story.backupAttemptId.equals(won.path("completed_by").asText()), "the backup's attempt won");
        checks.check("DISCARDED".equals(loser.path("status").asText()), "attempt #1 DISCARDED");
        checks.check(after.path("result").equals(won.path("result")) && after.path("completed_by")
                .equals(won.path("completed_by")), "the late answer did not change the result");
        String audit = context.bootstrapServers().isPresent()
                ? auditFromTopic(context, story, loser, checks) : auditFromJob(context, after, loser, checks);
        long primaryCalls = context.primary().requestsWithIdempotencyKey(story.primaryAttemptId);
        long backupCalls = context.backup().requestsWithIdempotencyKey(story.backupAttemptId);
        narrator.say("simulator ledgers: primary got " + primaryCalls + " request(s) for attempt #1, backup "
                + backupCalls + " for attempt #2");
        checks.check(primaryCalls == 1 && backupCalls == 1, "one provider call per attempt");
        return checks.outcome("#2 backup won; #1 primary's later answer " + loser.path("status").asText() + "; "
                + audit);
    }

    private static String auditFromTopic(DemoContext context, TimeoutStory story, JsonNode loser, Checks checks) {
        Narrator narrator = context.narrator();
        narrator.say("reading race-audit with a read_committed consumer ...");
        List<JsonNode> records = RaceAuditRecords.forJob(context.bootstrapServers().orElseThrow(), story.jobId,
                Duration.ofSeconds(30));
        records.forEach(record -> {
            narrator.say("race-audit: " + RaceLine.format(record));
            narrator.show(record.toPrettyString());
        });
        checks.check(records.size() == 1, "exactly one race-audit record for the job");
        JsonNode record = records.isEmpty() ? Json.object() : records.get(0);
        checks.check(story.primaryAttemptId.equals(record.path("losing_attempt").path("attempt_id").asText()),
                "the record's loser is attempt #1");
        checks.check(story.backupAttemptId.equals(record.path("winning_attempt").path("attempt_id").asText()),
                "the record's winner is attempt #2 (it had won before the late answer came)");
        checks.check("attempt-cancelled".equals(record.path("reason").asText()), "reason attempt-cancelled");
        checks.check(loser.path("discarded_result_sha256").asText("").equals(
                record.path("discarded_result_sha256").asText()), "the record's hash is the attempt's");
        return records.size() + " race-audit record(s): loser " + attempt(record.path("losing_attempt"))
                + ", winner " + attempt(record.path("winning_attempt")) + ", " + record.path("reason").asText("-")
                + ", sha256 " + hashPrefix(record.path("discarded_result_sha256").asText(null));
    }

    private static String attempt(JsonNode attempt) {
        return attempt.isObject() ? "#" + attempt.path("number").asText() + " " + attempt.path("provider").asText()
                : "none";
    }

    private static String auditFromJob(DemoContext context, JsonNode job, JsonNode loser, Checks checks) {
        context.narrator().say("no Kafka access (no --bootstrap-servers): the discard as GET /v1/jobs/"
                + job.path("id").asText() + " records it on attempt #1");
        checks.check("attempt-cancelled".equals(loser.path("lost_reason").asText()), "lost_reason attempt-cancelled");
        checks.check(loser.hasNonNull("discarded_result_sha256"), "the discarded result's hash is kept");
        return "attempt #1 lost_reason " + loser.path("lost_reason").asText("-") + ", sha256 "
                + hashPrefix(loser.path("discarded_result_sha256").asText(null)) + " (from the job; no Kafka access)";
    }
}
