package dev.onejob.launcher.demo;

import static dev.onejob.launcher.demo.DemoContext.shortId;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.launcher.cli.ApiClient;
import dev.onejob.launcher.demo.Scenario.Outcome;
import java.time.Duration;

/**
 * 4. The out-of-band resolution and the fallback: an operator resolves the timed-out attempt CANCELLED, the job
 * shows NEEDS_ACTION (no attempt live, the owner decides), and the fallback button now starts attempt #2 on the
 * backup (202). Continues the {@link TimeoutStory} of scenario 3.
 */
final class OutOfBandResolutionScenario implements Scenario.Play {
    @Override
    public Outcome run(DemoContext context) {
        TimeoutStory story = context.story();
        if (story.jobId == null || story.primaryAttemptId == null) {
            return Outcome.fail("cannot play: scenario 3 left no timed-out job");
        }
        Narrator narrator = context.narrator();
        narrator.say("an operator (ops, role operate) resolves attempt #1 " + shortId(story.primaryAttemptId)
                + " as CANCELLED: 'the primary is hanging'");
        ApiClient.Response resolved = context.resolve(story.primaryAttemptId, "CANCELLED",
                "the primary is hanging (onejob demo)");
        narrator.say("answer: " + resolved.status() + ", resolution " + resolved.body().path("resolution").asText("-")
                + ", job " + resolved.body().path("job").path("status").asText("-"));
        JsonNode job = context.awaitJob(story.jobId, Duration.ofSeconds(10),
                j -> DemoContext.hasStatus(j, "NEEDS_ACTION"));
        narrator.say("the job is " + job.path("status").asText() + ": no attempt is live, alice decides");
        narrator.say("alice presses the fallback button again");
        ApiClient.Response pressed = context.fallbackButton(story.jobId, DemoContext.BACKUP);
        JsonNode attempt = pressed.body();
        narrator.say("answer: " + pressed.status() + (pressed.ok() ? ", attempt #" + attempt.path("number").asText()
                + " on " + attempt.path("provider").asText() + " (" + attempt.path("id").asText() + ")"
                : " " + pressed.describe()));
        Checks checks = new Checks();
        checks.check(resolved.status() == 200, "the resolution accepted (200)");
        checks.check("CANCELLED".equals(resolved.body().path("resolution").asText()), "resolution CANCELLED");
        checks.check(DemoContext.hasStatus(job, "NEEDS_ACTION"), "the job NEEDS_ACTION");
        checks.check(pressed.status() == 202, "the button answers 202");
        checks.check(DemoContext.BACKUP.equals(attempt.path("provider").asText())
                && attempt.path("number").asInt() == 2, "attempt #2 on backup");
        if (checks.allHeld()) {
            story.backupAttemptId = attempt.path("id").asText();
            story.fallbackStarted = true;
        }
        return checks.outcome("resolve -> " + resolved.status() + " " + resolved.body().path("resolution").asText("-")
                + ", job " + job.path("status").asText() + "; button -> " + pressed.status()
                + (pressed.ok() ? ", attempt #" + attempt.path("number").asText() + " on "
                + attempt.path("provider").asText() : " " + pressed.problemType()));
    }
}
