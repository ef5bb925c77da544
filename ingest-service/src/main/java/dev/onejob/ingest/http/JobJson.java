package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.Job;
import java.time.Instant;
import java.util.List;

/** The HTTP representation of jobs and attempts (documented in the OpenAPI file as Job and Attempt). */
public final class JobJson {
    private JobJson() {
    }

    public static ObjectNode job(Job job, List<Attempt> attempts) {
        return job(job, attempts, List.of());
    }

    /** The job as the API shows it, with its attempts and what operators did to it. */
    public static ObjectNode job(Job job, List<Attempt> attempts, List<dev.onejob.core.ledger.OperatorAction> actions) {
        ObjectNode node = Json.object();
        node.put("id", job.id().toString());
        node.put("owner_id", job.ownerId());
        node.put("idempotency_key", job.idempotencyKey());
        node.put("status", job.status().name());
        node.put("contract", job.contract());
        node.put("target", job.targetProvider());
        var fallbacks = node.putArray("fallbacks");
        job.fallbackProviders().forEach(fallbacks::add);
        node.set("request", job.request());
        node.put("request_fingerprint", job.requestFingerprint());
        node.put("version", job.version());
        time(node, "created_at", job.createdAt());
        time(node, "updated_at", job.updatedAt());
        time(node, "finished_at", job.finishedAt());
        text(node, "completed_by", job.completedBy() == null ? null : job.completedBy().toString());
        node.set("result", job.result() == null ? Json.MAPPER.nullNode() : job.result());
        if (job.errorCode() == null) {
            node.putNull("error");
        } else {
            ObjectNode error = node.putObject("error");
            error.put("code", job.errorCode());
            text(error, "message", job.errorMessage());
        }
        var list = node.putArray("attempts");
        attempts.forEach(a -> list.add(attempt(a)));
        // Every billed attempt counts, a lost race's included: the provider billed it.
        node.put("cost_usd", attempts.stream().map(Attempt::costUsd).filter(java.util.Objects::nonNull)
                .reduce(java.math.BigDecimal.ZERO, java.math.BigDecimal::add).stripTrailingZeros().toPlainString());
        var done = node.putArray("operator_actions");
        for (var action : actions) {
            ObjectNode item = done.addObject();
            text(item, "attempt_id", action.attemptId() == null ? null : action.attemptId().toString());
            item.put("actor", action.actor());
            item.put("action", action.action());
            item.put("reason", action.reason());
            time(item, "at", action.createdAt());
        }
        return node;
    }

    public static ObjectNode attempt(Attempt attempt) {
        ObjectNode node = Json.object();
        node.put("id", attempt.id().toString());
        node.put("job_id", attempt.jobId().toString());
        node.put("number", attempt.number());
        node.put("provider", attempt.provider());
        node.put("status", attempt.status().name());
        time(node, "created_at", attempt.createdAt());
        time(node, "started_at", attempt.startedAt());
        time(node, "soft_deadline", attempt.softDeadline());
        time(node, "finished_at", attempt.finishedAt());
        if (attempt.errorCode() == null) {
            node.putNull("error");
        } else {
            ObjectNode error = node.putObject("error");
            error.put("code", attempt.errorCode());
            text(error, "message", attempt.errorMessage());
            if (attempt.retryable() == null) {
                error.putNull("retryable");
            } else {
                error.put("retryable", attempt.retryable());
            }
        }
        text(node, "provider_request_id", attempt.providerRequestId());
        text(node, "lost_reason", attempt.lostReason() == null ? null : attempt.lostReason().wireName());
        text(node, "discarded_result_sha256", attempt.discardedResultSha256());
        text(node, "discarded_result_summary", attempt.discardedResultSummary());
        text(node, "certification_override", attempt.certificationOverride());
        time(node, "unknown_at", attempt.unknownAt());
        time(node, "not_before", attempt.notBefore());
        node.set("usage", attempt.usage() == null ? Json.MAPPER.nullNode() : attempt.usage().toJson());
        text(node, "cost_usd", attempt.costUsd() == null ? null
                : attempt.costUsd().stripTrailingZeros().toPlainString());
        return node;
    }

    /** One event of a job's timeline (documented in the OpenAPI file as JobEvent). */
    public static ObjectNode event(dev.onejob.core.ledger.JobTimeline.Event event) {
        ObjectNode node = Json.object();
        node.put("id", event.position().text());
        node.put("type", event.type().wireName());
        time(node, "at", event.at());
        node.put("job_id", event.job().id().toString());
        Attempt attempt = event.attempt();
        if (attempt != null) {
            node.put("attempt_id", attempt.id().toString());
            node.put("attempt_number", attempt.number());
            node.put("provider", attempt.provider());
        }
        switch (event.type()) {
            case ATTEMPT_CREATED -> text(node, "certification_override", attempt.certificationOverride());
            case ATTEMPT_STARTED -> time(node, "soft_deadline", attempt.softDeadline());
            case ATTEMPT_SUCCEEDED, ATTEMPT_FAILED, ATTEMPT_CANCELLED -> {
                var latency = event.latency();
                if (latency == null) {
                    node.putNull("latency_ms");
                } else {
                    node.put("latency_ms", latency.toMillis());
                }
                text(node, "provider_request_id", attempt.providerRequestId());
                if (attempt.errorCode() == null) {
                    node.putNull("error");
                } else {
                    ObjectNode error = node.putObject("error");
                    error.put("code", attempt.errorCode());
                    text(error, "message", attempt.errorMessage());
                }
            }
            case ATTEMPT_DISCARDED -> {
                text(node, "lost_reason", attempt.lostReason() == null ? null : attempt.lostReason().wireName());
                text(node, "discarded_result_sha256", attempt.discardedResultSha256());
                text(node, "discarded_result_summary", attempt.discardedResultSummary());
            }
            case OPERATOR_ACTION -> {
                var action = event.action();
                text(node, "attempt_id", action.attemptId() == null ? null : action.attemptId().toString());
                node.put("actor", action.actor());
                node.put("action", action.action());
                node.put("reason", action.reason());
            }
            case JOB_FINISHED -> {
                Job job = event.job();
                node.put("job_status", job.status().name());
                text(node, "completed_by", job.completedBy() == null ? null : job.completedBy().toString());
                node.set("result", job.result() == null ? Json.MAPPER.nullNode() : job.result());
                if (job.errorCode() == null) {
                    node.putNull("error");
                } else {
                    ObjectNode error = node.putObject("error");
                    error.put("code", job.errorCode());
                    text(error, "message", job.errorMessage());
                }
            }
            default -> {
            }
        }
        return node;
    }

    private static void time(ObjectNode node, String field, Instant value) {
        text(node, field, value == null ? null : value.toString());
    }

    private static void text(ObjectNode node, String field, String value) {
        if (value == null) {
            node.putNull(field);
        } else {
            node.put(field, value);
        }
    }
}
