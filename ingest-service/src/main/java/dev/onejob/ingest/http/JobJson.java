package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.Job;
import dev.onejob.core.ledger.JobTimeline;
import dev.onejob.core.ledger.OperatorAction;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/** The HTTP representation of jobs and attempts (documented in the OpenAPI file as Job and Attempt). */
public final class JobJson {
    private JobJson() {
    }

    public static ObjectNode job(Job job, List<Attempt> attempts) {
        return job(job, attempts, List.of());
    }

    /** The job as the API shows it, with its attempts and what operators did to it. */
    public static ObjectNode job(Job job, List<Attempt> attempts, List<OperatorAction> actions) {
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
        outcome(node, job);
        var list = node.putArray("attempts");
        attempts.forEach(a -> list.add(attempt(a)));
        // Every billed attempt counts, a lost race's included: the provider billed it.
        node.put("cost_usd", attempts.stream().map(Attempt::costUsd).filter(Objects::nonNull)
                .reduce(BigDecimal.ZERO, BigDecimal::add).stripTrailingZeros().toPlainString());
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
        ObjectNode error = error(node, attempt.errorCode(), attempt.errorMessage());
        if (error != null) {
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
        text(node, "finish_reason", attempt.finishReason() == null ? null : attempt.finishReason().wire());
        return node;
    }

    /** One event of a job's timeline (documented in the OpenAPI file as JobEvent). */
    public static ObjectNode event(JobTimeline.Event event) {
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
                error(node, attempt.errorCode(), attempt.errorMessage());
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
                outcome(node, job);
            }
            default -> {
            }
        }
        return node;
    }

    /** What a job came to: the attempt that completed it, its result, its error. */
    private static void outcome(ObjectNode node, Job job) {
        text(node, "completed_by", job.completedBy() == null ? null : job.completedBy().toString());
        node.set("result", job.result() == null ? Json.MAPPER.nullNode() : job.result());
        error(node, job.errorCode(), job.errorMessage());
    }

    /** The {@code error} member: null without a code, else its code and message (returned for more members). */
    private static ObjectNode error(ObjectNode node, String code, String message) {
        if (code == null) {
            node.putNull("error");
            return null;
        }
        ObjectNode error = node.putObject("error");
        error.put("code", code);
        text(error, "message", message);
        return error;
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
