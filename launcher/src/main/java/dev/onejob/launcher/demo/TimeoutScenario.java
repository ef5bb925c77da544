package dev.onejob.launcher.demo;

import static dev.onejob.launcher.demo.DemoContext.shortId;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.launcher.cli.ApiClient;
import dev.onejob.launcher.demo.Scenario.Outcome;
import java.time.Duration;
import java.util.Locale;

/**
 * 3. The timeout: the primary holds the request past its soft timeout, so the attempt and the job are UNKNOWN (the
 * provider may still be working: no automatic failover), and the fallback button is refused with 409 attempt-live
 * naming the attempt. Starts the {@link TimeoutStory} the next two scenarios continue.
 */
final class TimeoutScenario implements Scenario.Play {
    /** How much later than its soft timeout the primary answers: time enough for the backup to win first. */
    static final Duration LATE_BY = Duration.ofSeconds(5);

    @Override
    public Outcome run(DemoContext context) {
        Narrator narrator = context.narrator();
        Duration soft = context.primarySoftTimeout();
        Duration hang = soft.plus(LATE_BY);
        narrator.say("the primary simulator will hold the next request for " + seconds(hang) + " before answering"
                + " (its soft timeout is " + seconds(soft) + ")");
        context.primary().hangOnceThenAnswer(hang);
        ApiClient.Response created = context.submit(context.key("timeout"),
                DemoContext.request("The app froze twice today."));
        Checks checks = new Checks();
        if (!checks.check(created.status() == 201, "the job is created")) {
            return checks.outcome("submit: " + created.describe());
        }
        String jobId = created.body().path("id").asText();
        context.story().jobId = jobId;
        long start = System.nanoTime();
        narrator.say("alice submits job " + shortId(jobId) + " (target primary, fallback backup); waiting past the"
                + " soft timeout ...");
        JsonNode job = context.awaitJob(jobId, soft.plusSeconds(20),
                j -> DemoContext.hasStatus(j, "UNKNOWN") || !j.path("finished_at").isNull());
        String took = seconds(Duration.ofNanos(System.nanoTime() - start));
        JsonNode first = DemoContext.attempt(job, 1);
        context.story().primaryAttemptId = first.path("id").asText(null);
        narrator.say("after " + took + " the job is " + job.path("status").asText() + ": attempt #1 on "
                + first.path("provider").asText() + " is " + first.path("status").asText()
                + " (the request left; the provider may still be working, so no automatic failover)");
        narrator.say("alice presses the fallback button: POST /v1/jobs/" + jobId + "/attempts {provider: backup}");
        ApiClient.Response refused = context.fallbackButton(jobId, DemoContext.BACKUP);
        narrator.say("answer: " + refused.describe());
        checks.check(DemoContext.hasStatus(job, "UNKNOWN"), "the job UNKNOWN");
        checks.check("UNKNOWN".equals(first.path("status").asText()), "attempt #1 UNKNOWN");
        checks.check(job.path("attempts").size() == 1, "no automatic failover");
        checks.check(refused.status() == 409 && "attempt-live".equals(refused.problemType()),
                "the button refused with 409 attempt-live");
        checks.check(first.path("id").asText().equals(refused.body().path("attempt_id").asText()),
                "the refusal names attempt #1");
        return checks.outcome(job.path("status").asText() + " after " + took + ", " + job.path("attempts").size()
                + " attempt(s); button -> " + refused.status() + " " + refused.problemType() + " naming attempt #1 ("
                + shortId(refused.body().path("attempt_id").asText()) + ")");
    }

    static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
    }
}
