package dev.onejob.launcher.demo;

import static dev.onejob.launcher.demo.DemoContext.shortId;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.launcher.cli.ApiClient;
import dev.onejob.launcher.demo.Scenario.Outcome;
import java.time.Duration;

/**
 * 2. The changed payload: a key already used for one request, sent with another body, is refused with 409
 * idempotency-key-reused naming the job, and the stored job does not change at all.
 */
final class ChangedPayloadScenario implements Scenario.Play {
    @Override
    public Outcome run(DemoContext context) {
        Narrator narrator = context.narrator();
        String key = context.key("changed-payload");
        narrator.say("alice submits 'The parcel arrived broken.' with Idempotency-Key " + key);
        ApiClient.Response created = context.submit(key, DemoContext.request("The parcel arrived broken."));
        String jobId = created.body().path("id").asText();
        Checks checks = new Checks();
        if (!checks.check(created.status() == 201, "the first request creates a job")) {
            return checks.outcome("first request: " + created.describe());
        }
        JsonNode before = context.awaitJob(jobId, Duration.ofSeconds(30), j -> DemoContext.hasStatus(j, "SUCCEEDED"));
        narrator.say("job " + shortId(jobId) + " is " + before.path("status").asText() + " (version "
                + before.path("version").asText() + ", fingerprint "
                + DemoContext.hashPrefix(before.path("request_fingerprint").asText()) + ")");
        narrator.say("alice sends the same key with another text: 'The parcel arrived on time.'");
        ApiClient.Response reused = context.submit(key, DemoContext.request("The parcel arrived on time."));
        narrator.say("answer: " + reused.describe());
        JsonNode after = context.job(jobId);
        boolean untouched = after.equals(before);
        narrator.say(untouched ? "GET /v1/jobs/" + jobId + " shows the job exactly as before (request, fingerprint,"
                + " status, version, result)" : "the job changed: " + after);
        checks.check(DemoContext.hasStatus(before, "SUCCEEDED"), "the first job finished");
        checks.check(reused.status() == 409, "409 Conflict");
        checks.check("idempotency-key-reused".equals(reused.problemType()), "problem type idempotency-key-reused");
        checks.check(jobId.equals(reused.body().path("job_id").asText()), "the problem names the job");
        checks.check(untouched, "the job untouched");
        return checks.outcome(reused.status() + " " + reused.problemType() + " naming job " + shortId(jobId)
                + "; job " + (untouched ? "unchanged" : "CHANGED") + " (" + after.path("status").asText()
                + ", version " + after.path("version").asText() + ")");
    }
}
