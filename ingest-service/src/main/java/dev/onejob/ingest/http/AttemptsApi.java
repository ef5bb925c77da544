package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.StorableText;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.core.ledger.FailureOutcome;
import dev.onejob.core.ledger.Job;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.NewAttemptOutcome;
import dev.onejob.core.ledger.OperatorAction;
import dev.onejob.core.ledger.ProviderGate;
import dev.onejob.core.ledger.TransitionOutcome;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.Principal;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * What people do to a job's attempts: {@code POST /v1/jobs/{id}/attempts}, the owner's fallback button (a new attempt
 * on a provider of the job's chain), and {@code POST /v1/attempts/{id}/resolve}, an operator's resolution of an
 * attempt whose call may never answer. The ledger decides every race; this class translates its answers to HTTP.
 */
final class AttemptsApi {
    private final Ledger ledger;
    private final JobsApi jobs;
    private final ProviderGate gate;
    private final IngestMetrics metrics;
    private final int maxBodyBytes;

    AttemptsApi(Ledger ledger, JobsApi jobs, ProviderGate gate, IngestMetrics metrics, int maxBodyBytes) {
        this.ledger = ledger;
        this.jobs = jobs;
        this.gate = gate;
        this.metrics = metrics;
        this.maxBodyBytes = maxBodyBytes;
    }

    void newAttempt(HttpCall exchange, Principal caller, String id) throws IOException {
        Job job = jobs.ownedJob(caller, id);
        JsonNode body = Exchanges.json(Exchanges.body(exchange, maxBodyBytes));
        JsonNode provider = body.get("provider");
        if (provider == null || !provider.isTextual()) {
            throw Problem.invalidRequest("'provider' (a provider id) is required", List.of(
                    "'provider' is required"));
        }
        String override = certificationOverride(caller, job, provider.asText(), body);
        NewAttemptOutcome outcome = ledger.interventions().newAttempt(job.id(), provider.asText(), override);
        if (outcome instanceof NewAttemptOutcome.Created created) {
            metrics.fallbackButton("created");
            Exchanges.sendJson(exchange, 202, JobJson.attempt(created.attempt()));
        } else if (outcome instanceof NewAttemptOutcome.LiveAttemptExists live) {
            metrics.fallbackButton("attempt-live");
            throw new Problem(409, "attempt-live", "An attempt is still live",
                    "attempt " + live.attemptId() + " is " + live.status() + "; no new attempt may start until it "
                            + "ends or an operator resolves it")
                    .with("attempt_id", live.attemptId().toString()).with("attempt_status", live.status().name());
        } else if (outcome instanceof NewAttemptOutcome.JobFinished finished) {
            metrics.fallbackButton("job-finished");
            throw JobsApi.jobFinished(job.id(), finished.status().name());
        } else if (outcome instanceof NewAttemptOutcome.ProviderNotAllowed notAllowed) {
            metrics.fallbackButton("provider-not-allowed");
            throw new Problem(422, "provider-not-allowed", "Provider not allowed for this job",
                    "provider '" + notAllowed.provider() + "' is not allowed for this job; allowed: "
                            + notAllowed.allowed());
        } else {
            throw Problem.notFound("no such job");
        }
    }

    /**
     * A fallback must be certified for the job's contract; the target, which the user chose, need not be. An
     * operator may override with {@code "certification_override": "<reason>"}, recorded on the attempt.
     */
    private String certificationOverride(Principal caller, Job job, String provider, JsonNode body) {
        JsonNode override = body.get("certification_override");
        if (override != null && override.isTextual()) {
            StorableText.problem(override.asText()).ifPresent(why -> {
                throw Problem.invalidRequest("'certification_override' " + why,
                        List.of("'certification_override' " + why));
            });
        }
        if (override != null && (!override.isTextual() || override.asText().isBlank())) {
            throw Problem.invalidRequest("'certification_override' must be the reason for the override",
                    List.of("'certification_override' must be a non-empty string"));
        }
        if (override != null && !caller.may(Principal.OPERATE)) {
            throw Problem.forbidden("overriding the certification check needs the 'operate' role");
        }
        if (provider.equals(job.targetProvider()) || !job.providerChain().contains(provider)) {
            return null;
        }
        Optional<String> whyNot = gate.whyNot(job, provider);
        if (whyNot.isEmpty()) {
            return null;
        }
        if (override == null) {
            metrics.fallbackButton("provider-not-certified");
            throw new Problem(422, "provider-not-certified", "Provider not certified for this contract",
                    whyNot.get() + "; an operator may override with \"certification_override\": \"<reason>\"");
        }
        return caller.ownerId() + ": " + override.asText();
    }

    void resolve(HttpCall exchange, Principal caller, String attemptIdText) throws IOException {
        UUID attemptId = JobsApi.uuid(attemptIdText).orElseThrow(() -> Problem.notFound("no such attempt"));
        Attempt attempt = ledger.lookups().attempt(attemptId).orElseThrow(() -> Problem.notFound("no such attempt"));
        JsonNode body = Exchanges.json(Exchanges.body(exchange, maxBodyBytes));
        String outcome = body.path("outcome").asText("");
        String reason = body.path("reason").asText("");
        StorableText.problem(reason).ifPresent(why -> {
            throw Problem.invalidRequest("'reason' " + why, List.of("'reason' " + why));
        });
        if (reason.isBlank()) {
            throw Problem.invalidRequest("'reason' is required: say why the attempt is resolved",
                    List.of("'reason' is required"));
        }
        ObjectNode answer = Json.object();
        switch (outcome) {
            case "CANCELLED" -> {
                if (ledger.interventions().resolveCancelled(attemptId, OperatorAction.of(caller.ownerId(),
                        OperatorAction.RESOLVE_CANCELLED, reason)) instanceof TransitionOutcome.NotApplied) {
                    throw notResolvable(ledger.lookups().attempt(attemptId).orElseThrow());
                }
                answer.put("resolution", "CANCELLED");
            }
            case "FAILED" -> {
                FailureOutcome failure = ledger.interventions().resolveFailed(attemptId,
                        OperatorAction.of(caller.ownerId(), OperatorAction.RESOLVE_FAILED, reason), gate);
                if (failure instanceof FailureOutcome.FailedOver over) {
                    answer.put("resolution", "FAILED");
                    answer.set("next_attempt", JobJson.attempt(over.next()));
                } else if (failure instanceof FailureOutcome.JobFailed) {
                    answer.put("resolution", "FAILED");
                    answer.putNull("next_attempt");
                } else {
                    throw notResolvable(ledger.lookups().attempt(attemptId).orElseThrow());
                }
            }
            default -> throw Problem.invalidRequest("'outcome' must be FAILED or CANCELLED",
                    List.of("'outcome' must be FAILED or CANCELLED"));
        }
        metrics.resolution(outcome);
        Job job = ledger.lookups().job(attempt.jobId()).orElseThrow();
        answer.set("job", JobJson.job(job, ledger.lookups().attempts(job.id()),
                ledger.interventions().operatorActions(job.id())));
        Exchanges.sendJson(exchange, 200, answer);
    }

    /**
     * Why {@code attempt} (as it is now) was not resolved: not STARTING or UNKNOWN, or STARTING inside its soft
     * deadline, when its call may still answer and a failover would pay for a second call.
     */
    private static Problem notResolvable(Attempt attempt) {
        String status = attempt.status().name();
        if (attempt.status() == AttemptStatus.STARTING && attempt.softDeadline() != null) {
            return new Problem(409, "attempt-not-resolvable", "The attempt cannot be resolved yet",
                    "attempt " + attempt.id() + " is STARTING and inside its soft deadline (" + attempt.softDeadline()
                            + "): its call may still answer, and a failover now would pay for a second call; resolve"
                            + " it after the soft deadline, when it is UNKNOWN if no answer came")
                    .with("attempt_status", status).with("soft_deadline", attempt.softDeadline().toString());
        }
        return new Problem(409, "attempt-not-resolvable", "The attempt cannot be resolved",
                "attempt " + attempt.id() + " is " + status + "; only STARTING (past its soft deadline) or UNKNOWN"
                        + " attempts can be resolved")
                .with("attempt_status", status);
    }
}
