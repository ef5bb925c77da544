package dev.onejob.launcher.demo;

import static dev.onejob.launcher.demo.DemoContext.shortId;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.launcher.cli.ApiClient;
import dev.onejob.launcher.demo.Scenario.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * 6. A failover blocked by a failed certification: the backup is re-certified while it invents a top-level key, so
 * its newest certification fails; then the primary fails a job with a 500, and the reconciler does not fail over to
 * the backup: the job is FAILED, naming the failed certification, with no attempt on the backup. Afterwards the
 * backup is certified again with its normal behaviour, so the stack is left as the demo found it.
 */
final class CertificationFailoverScenario implements Scenario.Play {
    @Override
    public Outcome run(DemoContext context) {
        Narrator narrator = context.narrator();
        Checks checks = new Checks();
        String failedCertification;
        try {
            narrator.say("the backup simulator starts inventing a top-level key ('confidence') in every answer");
            context.backup().inventKey("confidence");
            narrator.say("an operator re-certifies backup for " + DemoContext.CONTRACT
                    + " (POST /v1/certifications) ...");
            failedCertification = describe(context.certify(DemoContext.BACKUP));
            narrator.say("certification: " + failedCertification);
            checks.check(failedCertification.startsWith("failed"), "the backup's certification fails");
        } finally {
            context.backup().resetBehaviours();
        }
        String observed = failoverBlocked(context, checks);
        narrator.say("the backup behaves again; re-certifying it so the stack is left as it was ...");
        String restored = describe(context.certify(DemoContext.BACKUP));
        narrator.say("certification: " + restored);
        checks.check(restored.startsWith("passed"), "the backup certified again afterwards");
        return checks.outcome("backup certification " + failedCertification + "; " + observed);
    }

    private static String failoverBlocked(DemoContext context, Checks checks) {
        Narrator narrator = context.narrator();
        narrator.say("the primary simulator will answer the next request with HTTP 500");
        context.primary().failOnceWith(500);
        ApiClient.Response created = context.submit(context.key("uncertified-fallback"),
                DemoContext.request("The refund never came."));
        if (!checks.check(created.status() == 201, "the job is created")) {
            return "submit: " + created.describe();
        }
        String jobId = created.body().path("id").asText();
        narrator.say("alice submits job " + shortId(jobId) + " (target primary, fallback backup); waiting ...");
        JsonNode job = context.awaitJob(jobId, Duration.ofSeconds(30), j -> !j.path("finished_at").isNull());
        String error = job.path("error").path("message").asText("");
        narrator.say("the job is " + job.path("status").asText() + " with " + job.path("attempts").size()
                + " attempt(s); error: " + job.path("error").path("code").asText("-") + ": " + error);
        checks.check(DemoContext.hasStatus(job, "FAILED"), "the job FAILED");
        checks.check(job.path("attempts").size() == 1, "no attempt on the backup");
        checks.check(error.contains("backup failed its latest certification"), "the error names the failed"
                + " certification");
        return "primary 500 -> job " + job.path("status").asText() + ", " + job.path("attempts").size()
                + " attempt(s), no failover"
                + (error.contains("backup failed its latest certification") ? "; the error names backup's failed"
                + " certification" : "; error: " + error);
    }

    /** {@code passed} or {@code failed (structure)} for the first certification of the answer. */
    private static String describe(ApiClient.Response response) {
        if (response.status() != 200) {
            return "refused: " + response.describe();
        }
        JsonNode certification = response.body().path("certifications").path(0);
        if (certification.path("passed").asBoolean(false)) {
            return "passed";
        }
        List<String> failed = new ArrayList<>();
        certification.path("checks").forEach(check -> {
            if (!check.path("passed").asBoolean(true)) {
                failed.add(check.path("name").asText());
            }
        });
        return "failed (" + String.join(", ", failed) + ")";
    }
}
