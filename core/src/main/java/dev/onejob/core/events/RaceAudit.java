package dev.onejob.core.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/**
 * A {@code race-audit} record ({@code events/race-audit.v2.schema.json}): one per discarded result, for analysts.
 * Each side carries what its call cost ({@code costUsd}, null when not known when the race was detected): the
 * loser's is what the race cost, since the provider bills a discarded answer like any other. Reads version 1 too.
 * {@code winningAttempt} is null when no attempt won (the job or the attempt was cancelled); {@code reason} is the
 * wire name ({@code lost-cas}, {@code attempt-cancelled}, {@code attempt-failed}, {@code job-cancelled}).
 */
public record RaceAudit(UUID jobId, String ownerId, AttemptSummary winningAttempt, AttemptSummary losingAttempt,
                        String reason, String discardedResultSha256, Instant detectedAt) {
    public static final int VERSION = 2;

    /** One side of the race. */
    public record AttemptSummary(UUID attemptId, int number, String provider, Instant startedAt,
                                 Instant completedAt, BigDecimal costUsd) {

        public AttemptSummary {
            // As a JSON tree reads it back: equal costs make equal records, whatever their trailing zeros.
            costUsd = costUsd == null ? null : costUsd.stripTrailingZeros();
        }

        /** A side whose cost is not known. */
        public AttemptSummary(UUID attemptId, int number, String provider, Instant startedAt, Instant completedAt) {
            this(attemptId, number, provider, startedAt, completedAt, null);
        }

        ObjectNode toJson() {
            ObjectNode summary = Json.object();
            summary.put("attempt_id", attemptId.toString());
            summary.put("number", number);
            summary.put("provider", provider);
            Fields.put(summary, "started_at", startedAt);
            Fields.put(summary, "completed_at", completedAt);
            Fields.putNumber(summary, "cost_usd", costUsd);
            return summary;
        }

        static AttemptSummary fromJson(JsonNode node) {
            return new AttemptSummary(Fields.uuid(node, "attempt_id"), (int) Fields.number(node, "number"),
                    Fields.text(node, "provider"), Fields.optionalInstant(node, "started_at"),
                    Fields.optionalInstant(node, "completed_at"), Fields.optionalDecimal(node, "cost_usd"));
        }

    }

    public ObjectNode toJson() {
        ObjectNode audit = Json.object();
        audit.put("job_id", jobId.toString());
        audit.put("owner_id", ownerId);
        audit.set("winning_attempt", winningAttempt == null ? Json.MAPPER.nullNode() : winningAttempt.toJson());
        audit.set("losing_attempt", losingAttempt.toJson());
        audit.put("reason", reason);
        audit.put("discarded_result_sha256", discardedResultSha256);
        audit.put("detected_at", detectedAt.toString());
        return audit;
    }

    public static RaceAudit fromJson(JsonNode node) {
        Fields.object(node, "the race-audit record");
        JsonNode winner = node.path("winning_attempt");
        return new RaceAudit(Fields.uuid(node, "job_id"), Fields.text(node, "owner_id"),
                winner.isObject() ? AttemptSummary.fromJson(winner) : null,
                AttemptSummary.fromJson(Fields.object(node.get("losing_attempt"), "'losing_attempt'")),
                Fields.text(node, "reason"), Fields.text(node, "discarded_result_sha256"),
                Fields.instant(node, "detected_at"));
    }
}
