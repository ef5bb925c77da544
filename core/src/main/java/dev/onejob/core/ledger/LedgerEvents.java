package dev.onejob.core.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.time.Instant;
import java.util.List;

/**
 * The payloads the ledger announces through the outbox: {@code attempt-commands}, {@code job-results} and
 * {@code race-audit}. Their JSON Schemas live in the schema module under {@code events/}; field names here and
 * there change together.
 */
public final class LedgerEvents {
    public static final int ATTEMPT_COMMAND_VERSION = 1;
    public static final int JOB_RESULT_VERSION = 1;
    public static final int RACE_AUDIT_VERSION = 1;

    private LedgerEvents() {
    }

    /** What a worker needs to make one call: the attempt's identity and the job's request. */
    public static ObjectNode attemptCommand(Job job, Attempt attempt) {
        ObjectNode command = Json.object();
        command.put("attempt_id", attempt.id().toString());
        command.put("job_id", job.id().toString());
        command.put("owner_id", job.ownerId());
        command.put("attempt_number", attempt.number());
        command.put("provider", attempt.provider());
        command.put("job_version", attempt.jobVersion());
        command.put("contract", job.contract());
        command.set("request", job.request());
        command.put("created_at", attempt.createdAt().toString());
        return command;
    }

    /** One record per finished job: the result or the final error, and the attempt history in brief. */
    public static ObjectNode jobResult(Job job, List<Attempt> attempts) {
        ObjectNode result = Json.object();
        result.put("job_id", job.id().toString());
        result.put("owner_id", job.ownerId());
        result.put("idempotency_key", job.idempotencyKey());
        result.put("status", job.status().name());
        putNullable(result, "completed_by", job.completedBy() == null ? null : job.completedBy().toString());
        result.set("result", job.result() == null ? Json.MAPPER.nullNode() : job.result());
        if (job.errorCode() == null) {
            result.putNull("error");
        } else {
            ObjectNode error = result.putObject("error");
            error.put("code", job.errorCode());
            putNullable(error, "message", job.errorMessage());
        }
        var history = result.putArray("attempts");
        for (Attempt attempt : attempts) {
            ObjectNode brief = history.addObject();
            brief.put("attempt_id", attempt.id().toString());
            brief.put("number", attempt.number());
            brief.put("provider", attempt.provider());
            brief.put("status", attempt.status().name());
            putNullable(brief, "error_code", attempt.errorCode());
        }
        result.put("finished_at", job.finishedAt().toString());
        return result;
    }

    /** One record per discarded result, for analysts. */
    public static ObjectNode raceAudit(Job job, Attempt winner, Attempt loser, LossReason reason,
                                       String discardedResultSha256, Instant detectedAt) {
        ObjectNode audit = Json.object();
        audit.put("job_id", job.id().toString());
        audit.put("owner_id", job.ownerId());
        audit.set("winning_attempt", winner == null ? Json.MAPPER.nullNode() : attemptSummary(winner));
        audit.set("losing_attempt", attemptSummary(loser));
        audit.put("reason", reason.wireName());
        audit.put("discarded_result_sha256", discardedResultSha256);
        audit.put("detected_at", detectedAt.toString());
        return audit;
    }

    private static JsonNode attemptSummary(Attempt attempt) {
        ObjectNode summary = Json.object();
        summary.put("attempt_id", attempt.id().toString());
        summary.put("number", attempt.number());
        summary.put("provider", attempt.provider());
        putNullable(summary, "started_at", attempt.startedAt() == null ? null : attempt.startedAt().toString());
        putNullable(summary, "completed_at", attempt.finishedAt() == null ? null : attempt.finishedAt().toString());
        return summary;
    }

    private static void putNullable(ObjectNode node, String field, String value) {
        if (value == null) {
            node.putNull(field);
        } else {
            node.put(field, value);
        }
    }
}
