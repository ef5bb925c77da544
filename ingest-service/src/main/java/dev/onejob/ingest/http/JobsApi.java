package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.OperatorAction;
import dev.onejob.core.ledger.FailureOutcome;
import dev.onejob.core.ledger.IdempotencyKey;
import dev.onejob.core.ledger.Job;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.core.ledger.NewAttemptOutcome;
import dev.onejob.core.ledger.ProviderGate;
import dev.onejob.core.ledger.NewJob;
import dev.onejob.core.ledger.SubmitOutcome;
import dev.onejob.core.ledger.TransitionOutcome;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.JobRequests;
import dev.onejob.ingest.Principal;
import dev.onejob.core.ledger.LedgerQueries.JobHistory;
import java.io.IOException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.Optional;
import java.util.UUID;

/**
 * The job endpoints of the HTTP API. Owners see and touch only their own jobs: another owner's job answers 404,
 * exactly like a missing one. The ledger decides every race; this class only translates its answers to HTTP.
 */
final class JobsApi {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(JobsApi.class);
    private final LedgerStore ledger;
    private final JobRequests requests;
    private final ProviderGate gate;
    private final IngestMetrics metrics;
    private final int maxBodyBytes;
    /** Submits a validated job: through group commit, sharing a transaction with the submissions beside it. */
    private final java.util.function.Function<NewJob, java.util.concurrent.CompletableFuture<SubmitOutcome>> submitter;
    /** Throws the 503 overloaded problem while the workers' backlog is over its bound. */
    private final Runnable admitSubmission;
    private final JobWaits waits;
    private final Duration maxWait;

    JobsApi(LedgerStore ledger,
            java.util.function.Function<NewJob, java.util.concurrent.CompletableFuture<SubmitOutcome>> submitter,
            Runnable admitSubmission,
            JobRequests requests, ProviderGate gate, IngestMetrics metrics, int maxBodyBytes, JobWaits waits,
            Duration maxWait) {
        this.ledger = ledger;
        this.waits = waits;
        this.maxWait = maxWait;
        this.submitter = submitter;
        this.admitSubmission = admitSubmission;
        this.requests = requests;
        this.gate = gate;
        this.metrics = metrics;
        this.maxBodyBytes = maxBodyBytes;
    }

    /**
     * What a route that answers later needs from the server: answering a failure as the server would (a problem,
     * 503 when PostgreSQL is away, 500 otherwise), and recording the request once it is answered.
     */
    interface Later {
        void failed(HttpCall exchange, Throwable error);

        void finished(HttpCall exchange);
    }

    /**
     * Validates the submission on this thread, then hands it to group commit and returns: the answer is sent on
     * {@code executor} once its group has committed, and no thread waits for the commit meanwhile.
     */
    void submit(HttpCall exchange, Principal caller, java.util.concurrent.Executor executor, Later later)
            throws IOException {
        admit(caller);
        String key = exchange.header("Idempotency-Key");
        if (key == null) {
            throw new Problem(400, "idempotency-key-missing", "Idempotency-Key header required",
                    "POST /v1/jobs needs an Idempotency-Key header naming this intent (1 to 255 printable ASCII)");
        }
        IdempotencyKey.problem(key).ifPresent(reason -> {
            throw new Problem(400, "idempotency-key-invalid", "Invalid Idempotency-Key", reason);
        });
        JsonNode body = Exchanges.json(Exchanges.body(exchange, maxBodyBytes));
        JobRequests.Validated validated = requests.validate(caller.ownerId(), key, body);
        if (!validated.isValid()) {
            metrics.submitted("http", "invalid");
            throw Problem.invalidRequest("the job request is not valid: " + String.join("; ", validated.problems()),
                    validated.problems());
        }
        Optional<Duration> wait = Prefer.waitFor(exchange.headers("Prefer"), maxWait);
        submitThenAnswer(exchange, validated.job(), executor, later,
                outcome -> answer(exchange, caller, outcome, wait, later));
    }

    /** Answers a submission once its group has committed: true when answered then, false when a wait took it. */
    interface Answerer {
        boolean answer(SubmitOutcome outcome) throws IOException;
    }

    /**
     * Hands {@code job} to group commit and returns; once its group has committed, {@code answerer} answers on
     * {@code executor} (a failure is answered as the server would), and the request is recorded as finished unless
     * the answerer handed the exchange on to a wait or a stream, which record it themselves.
     */
    void submitThenAnswer(HttpCall exchange, NewJob job, java.util.concurrent.Executor executor, Later later,
                          Answerer answerer) {
        exchange.later();
        submitter.apply(job).whenCompleteAsync((outcome, error) -> {
            boolean answered = true;
            try {
                if (error != null) {
                    later.failed(exchange, error instanceof java.util.concurrent.CompletionException
                            && error.getCause() != null ? error.getCause() : error);
                } else {
                    answered = answerer.answer(outcome);
                }
            } catch (IOException | RuntimeException e) {
                later.failed(exchange, e);
            } finally {
                if (answered) {
                    later.finished(exchange);
                }
            }
        }, executor);
    }

    /**
     * What every job-creating request passes before its body is read: the submit role, the owner's rate limit, and
     * the front door's admission (503 while the workers' backlog is over its bound).
     */
    void admit(Principal caller) {
        requireRole(caller, Principal.SUBMIT);
        OptionalLong wait = requests.rateLimit().take(caller.ownerId());
        if (wait.isPresent()) {
            throw new Problem(429, "rate-limited", "Too many requests", requests.rateLimit().reason(
                    caller.ownerId(), wait.getAsLong())).with("retry_after_seconds", Long.toString(wait.getAsLong()));
        }
        admitSubmission.run();
    }

    /**
     * The problem for a submission that was valid and not written: over the owner's spend cap (402) or live-attempt
     * limit (429). The key stays free.
     */
    static Problem overLimit(SubmitOutcome.OverLimit over) {
        boolean budget = over.limit() == SubmitOutcome.OverLimit.Limit.SPEND_CAP;
        return budget ? new Problem(402, "budget-exceeded", "Over the owner's spend cap", over.reason())
                : new Problem(429, "too-many-live-attempts", "Too many live attempts", over.reason());
    }

    /** The problem for a key that already names a job created from a different request. */
    static Problem keyReused(UUID existingJobId) {
        return new Problem(409, "idempotency-key-reused", "Idempotency-Key reused with a different request",
                "this Idempotency-Key already names job " + existingJobId + ", created from a "
                        + "different request; use a new key for a new intent")
                .with("job_id", existingJobId.toString());
    }

    /** Answers the submission now, or (with a wait and a job not finished) later: false then. */
    private boolean answer(HttpCall exchange, Principal caller, SubmitOutcome outcome, Optional<Duration> wait,
                           Later later) throws IOException {
        if (outcome instanceof SubmitOutcome.Created created) {
            metrics.submitted("http", "created");
            log.info("event=job_created channel=http job={} owner={} attempt={} provider={}", created.job().id(),
                    caller.ownerId(), created.firstAttempt().id(), created.firstAttempt().provider());
            exchange.setHeader("Location", "/v1/jobs/" + created.job().id());
            if (wait.isPresent()) {
                waits.answerWhenFinished(exchange, created.job().id(), wait.get(), 201, JobsApi::jobView, later);
                return false;
            }
            Exchanges.sendJson(exchange, 201, JobJson.job(created.job(), java.util.List.of(created.firstAttempt())));
        } else if (outcome instanceof SubmitOutcome.Replayed replayed) {
            metrics.submitted("http", "replayed");
            log.info("event=job_replayed channel=http job={} owner={}", replayed.job().id(), caller.ownerId());
            exchange.setHeader("Location", "/v1/jobs/" + replayed.job().id());
            exchange.setHeader("Idempotent-Replayed", "true");
            if (wait.isPresent() && !replayed.job().status().isFinished()) {
                // A duplicate waits on the same job as the first submission: one job, however many wait on it.
                waits.answerWhenFinished(exchange, replayed.job().id(), wait.get(), 200, JobsApi::jobView, later);
                return false;
            }
            if (wait.isPresent()) {
                exchange.setHeader("Preference-Applied", Prefer.applied(wait.get()));
            }
            Exchanges.sendJson(exchange, 200, JobJson.job(replayed.job(), ledger.attempts(replayed.job().id()),
                    ledger.operatorActions(replayed.job().id())));
        } else if (outcome instanceof SubmitOutcome.Refused refused) {
            // PostgreSQL refused this one submission's data (its group was retried one by one): nothing was written.
            metrics.submitted("http", "refused");
            log.error("event=job_refused channel=http owner={} reason=\"{}\"", caller.ownerId(), refused.reason());
            throw new Problem(500, "internal", "Internal error", "the server could not store the request; nothing was "
                    + "written");
        } else if (outcome instanceof SubmitOutcome.OverLimit over) {
            // Valid, and not written: the key stays free, so the same request may be sent again later.
            boolean budget = over.limit() == SubmitOutcome.OverLimit.Limit.SPEND_CAP;
            metrics.submitted("http", budget ? "over-budget" : "over-live-limit");
            log.info("event=job_over_limit channel=http owner={} limit={} reason=\"{}\"", caller.ownerId(),
                    over.limit(), over.reason());
            throw overLimit(over);
        } else {
            SubmitOutcome.Conflict conflict = (SubmitOutcome.Conflict) outcome;
            metrics.submitted("http", "conflict");
            log.info("event=idempotency_conflict channel=http job={} owner={}", conflict.existingJobId(),
                    caller.ownerId());
            throw keyReused(conflict.existingJobId());
        }
        return true;
    }

    /** The job; with {@code Prefer: wait=N}, once it is finished or N seconds have passed. */
    void get(HttpCall exchange, Principal caller, String id, Later later) throws IOException {
        Job job = ownedJob(caller, id);
        Optional<Duration> wait = Prefer.waitFor(exchange.headers("Prefer"), maxWait);
        if (wait.isPresent() && !job.status().isFinished()) {
            waits.answerWhenFinished(exchange, job.id(), wait.get(), 200, this::view, later);
            return;
        }
        wait.ifPresent(w -> exchange.setHeader("Preference-Applied", Prefer.applied(w)));
        Exchanges.sendJson(exchange, 200, view(job));
    }

    void findByKey(HttpCall exchange, Principal caller) throws IOException {
        String key = Exchanges.query(exchange).get("idempotency_key");
        if (key == null) {
            throw new Problem(400, "bad-request", "Bad request", "GET /v1/jobs needs ?idempotency_key=K");
        }
        IdempotencyKey.problem(key).ifPresent(reason -> {
            throw new Problem(400, "bad-request", "Bad request", reason);
        });
        Job job = ledger.jobForKey(caller.ownerId(), key).orElseThrow(() ->
                Problem.notFound("you have no job with that idempotency key"));
        Exchanges.sendJson(exchange, 200, view(job));
    }

    void newAttempt(HttpCall exchange, Principal caller, String id) throws IOException {
        requireRole(caller, Principal.SUBMIT);
        Job job = ownedJob(caller, id);
        JsonNode body = Exchanges.json(Exchanges.body(exchange, maxBodyBytes));
        JsonNode provider = body.get("provider");
        if (provider == null || !provider.isTextual()) {
            throw Problem.invalidRequest("'provider' (a provider id) is required", java.util.List.of(
                    "'provider' is required"));
        }
        String override = certificationOverride(caller, job, provider.asText(), body);
        NewAttemptOutcome outcome = ledger.newAttempt(job.id(), provider.asText(), override);
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
            throw jobFinished(job.id(), finished.status().name());
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
            dev.onejob.core.json.StorableText.problem(override.asText()).ifPresent(why -> {
                throw Problem.invalidRequest("'certification_override' " + why,
                        java.util.List.of("'certification_override' " + why));
            });
        }
        if (override != null && (!override.isTextual() || override.asText().isBlank())) {
            throw Problem.invalidRequest("'certification_override' must be the reason for the override",
                    java.util.List.of("'certification_override' must be a non-empty string"));
        }
        if (override != null && !caller.may(Principal.OPERATE)) {
            throw Problem.forbidden("overriding the certification check needs the 'operate' role");
        }
        if (provider.equals(job.targetProvider()) || !job.providerChain().contains(provider)) {
            return null;
        }
        java.util.Optional<String> whyNot = gate.whyNot(job, provider);
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

    void cancel(HttpCall exchange, Principal caller, String id) throws IOException {
        requireRole(caller, Principal.SUBMIT);
        Job job = ownedJob(caller, id);
        TransitionOutcome outcome = ledger.cancelJob(job.id(), "cancelled by " + caller.ownerId());
        if (outcome instanceof TransitionOutcome.NotApplied notApplied) {
            throw jobFinished(job.id(), notApplied.current());
        }
        Job after = ledger.job(job.id()).orElseThrow();
        Exchanges.sendJson(exchange, 200, JobJson.job(after, ledger.attempts(job.id()), ledger.operatorActions(job.id())));
    }

    void resolve(HttpCall exchange, Principal caller, String attemptIdText) throws IOException {
        requireRole(caller, Principal.OPERATE);
        UUID attemptId = uuid(attemptIdText).orElseThrow(() -> Problem.notFound("no such attempt"));
        Attempt attempt = ledger.attempt(attemptId).orElseThrow(() -> Problem.notFound("no such attempt"));
        JsonNode body = Exchanges.json(Exchanges.body(exchange, maxBodyBytes));
        String outcome = body.path("outcome").asText("");
        String reason = body.path("reason").asText("");
        dev.onejob.core.json.StorableText.problem(reason).ifPresent(why -> {
            throw Problem.invalidRequest("'reason' " + why, java.util.List.of("'reason' " + why));
        });
        if (reason.isBlank()) {
            throw Problem.invalidRequest("'reason' is required: say why the attempt is resolved",
                    java.util.List.of("'reason' is required"));
        }
        ObjectNode answer = Json.object();
        switch (outcome) {
            case "CANCELLED" -> {
                if (ledger.resolveCancelled(attemptId, OperatorAction.of(caller.ownerId(),
                        OperatorAction.RESOLVE_CANCELLED, reason)) instanceof TransitionOutcome.NotApplied) {
                    throw notResolvable(ledger.attempt(attemptId).orElseThrow());
                }
                answer.put("resolution", "CANCELLED");
            }
            case "FAILED" -> {
                FailureOutcome failure = ledger.resolveFailed(attemptId, OperatorAction.of(caller.ownerId(),
                        OperatorAction.RESOLVE_FAILED, reason), gate);
                if (failure instanceof FailureOutcome.FailedOver over) {
                    answer.put("resolution", "FAILED");
                    answer.set("next_attempt", JobJson.attempt(over.next()));
                } else if (failure instanceof FailureOutcome.JobFailed) {
                    answer.put("resolution", "FAILED");
                    answer.putNull("next_attempt");
                } else {
                    throw notResolvable(ledger.attempt(attemptId).orElseThrow());
                }
            }
            default -> throw Problem.invalidRequest("'outcome' must be FAILED or CANCELLED",
                    java.util.List.of("'outcome' must be FAILED or CANCELLED"));
        }
        metrics.resolution(outcome);
        Job job = ledger.job(attempt.jobId()).orElseThrow();
        answer.set("job", JobJson.job(job, ledger.attempts(job.id()), ledger.operatorActions(job.id())));
        Exchanges.sendJson(exchange, 200, answer);
    }

    /** A job as a submission's answer shows it. */
    private static ObjectNode jobView(JobHistory history) {
        return JobJson.job(history.job(), history.attempts(), history.actions());
    }

    /** The job with its attempts and whether its target is certified for its contract (shown, never enforced). */
    private ObjectNode view(Job job) {
        return view(new JobHistory(job, ledger.attempts(job.id()), ledger.operatorActions(job.id())));
    }

    private ObjectNode view(JobHistory history) {
        Job job = history.job();
        var node = JobJson.job(job, history.attempts(), history.actions());
        var certification = node.putObject("target_certification");
        java.util.Optional<String> whyNot = gate.whyNot(job, job.targetProvider());
        certification.put("certified", whyNot.isEmpty());
        if (whyNot.isPresent()) {
            certification.put("reason", whyNot.get());
        } else {
            certification.putNull("reason");
        }
        return node;
    }

    private Job ownedJob(Principal caller, String id) {
        return uuid(id).flatMap(ledger::job).filter(job -> job.ownerId().equals(caller.ownerId()))
                .orElseThrow(() -> Problem.notFound("no such job"));
    }

    private static Optional<UUID> uuid(String text) {
        try {
            return Optional.of(UUID.fromString(text));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static void requireRole(Principal caller, String role) {
        if (!caller.may(role)) {
            throw Problem.forbidden("this token lacks the '" + role + "' role");
        }
    }

    private static Problem jobFinished(UUID jobId, String status) {
        return new Problem(409, "job-finished", "The job is finished", "job " + jobId + " is already " + status)
                .with("job_status", status);
    }

    /**
     * Why {@code attempt} (as it is now) was not resolved: not STARTING or UNKNOWN, or STARTING inside its soft
     * deadline, when its call may still answer and a failover would pay for a second call.
     */
    private static Problem notResolvable(Attempt attempt) {
        String status = attempt.status().name();
        if (attempt.status() == dev.onejob.core.ledger.AttemptStatus.STARTING && attempt.softDeadline() != null) {
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
