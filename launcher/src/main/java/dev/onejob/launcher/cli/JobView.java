package dev.onejob.launcher.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import java.io.PrintStream;

/**
 * A job as the HTTP API returns it (the OpenAPI {@code Job}), printed for people: what was asked, how it stands,
 * the result or the error, and one row per attempt with why a discarded one lost. Consumes the JSON; owns nothing.
 */
final class JobView {
    private static final int HASH_PREFIX = 12;

    private JobView() {
    }

    static void print(JsonNode job, PrintStream out) {
        out.println("job " + job.path("id").asText() + "  " + job.path("status").asText());
        out.println("  owner " + job.path("owner_id").asText() + ", idempotency key '"
                + job.path("idempotency_key").asText() + "'");
        out.println("  contract " + job.path("contract").asText() + ", providers " + chain(job) + ", version "
                + job.path("version").asText());
        out.println("  created " + job.path("created_at").asText() + ", updated " + job.path("updated_at").asText()
                + (job.path("finished_at").isNull() ? "" : ", finished " + job.path("finished_at").asText()));
        if (!job.path("result").isNull() && !job.path("result").isMissingNode()) {
            out.println("  result " + Json.write(job.path("result")) + "  (from attempt "
                    + job.path("completed_by").asText() + ")");
        }
        JsonNode error = job.path("error");
        if (error.isObject()) {
            out.println("  error " + error.path("code").asText() + ": " + error.path("message").asText(""));
        }
        Table attempts = new Table("#", "attempt", "provider", "status", "started", "finished", "note")
                .maxWidth(6, 60);
        for (JsonNode attempt : job.path("attempts")) {
            attempts.row(attempt.path("number").asInt(), attempt.path("id").asText(), attempt.path("provider").asText(),
                    attempt.path("status").asText(), text(attempt.path("started_at")),
                    text(attempt.path("finished_at")), note(attempt));
        }
        out.print(attempts.render());
    }

    /** {@code primary -> backup}: the target, then the fallbacks in order. */
    static String chain(JsonNode job) {
        StringBuilder chain = new StringBuilder(job.path("target").asText());
        job.path("fallbacks").forEach(f -> chain.append(" -> ").append(f.asText()));
        return chain.toString();
    }

    private static String note(JsonNode attempt) {
        if (attempt.hasNonNull("lost_reason")) {
            return "result discarded: " + attempt.path("lost_reason").asText() + ", sha256 "
                    + prefix(attempt.path("discarded_result_sha256").asText());
        }
        JsonNode error = attempt.path("error");
        if (error.isObject()) {
            return error.path("code").asText() + ": " + error.path("message").asText("");
        }
        return "";
    }

    static String prefix(String hash) {
        return hash.length() <= HASH_PREFIX ? hash : hash.substring(0, HASH_PREFIX) + "...";
    }

    private static String text(JsonNode value) {
        return value.isNull() || value.isMissingNode() ? "-" : value.asText();
    }
}
