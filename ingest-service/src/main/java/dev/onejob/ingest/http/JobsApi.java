package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.ledger.IdempotencyKey;
import dev.onejob.core.ledger.Job;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.LedgerQueries.JobHistory;
import dev.onejob.core.ledger.NewJob;
import dev.onejob.core.ledger.ProviderGate;
import dev.onejob.core.ledger.SubmitOutcome;
import dev.onejob.core.ledger.TransitionOutcome;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.JobRequests;
import dev.onejob.ingest.Principal;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job endpoints of the HTTP API. Owners see and touch only their own jobs: another owner's job answers 404,
 * exactly like a missing one. The ledger decides every race; this class only translates its answers to HTTP.
 */
final class JobsApi {
    private static final Logger log = LoggerFactory.getLogger(JobsApi.class);
    private final Ledger ledger;
    private final JobRequests requests;
    private final ProviderGate gate;
    private final IngestMetrics metrics;
    private final int maxBodyBytes;
    /** Submits a validated job: through group commit, sharing a transaction with the submissions beside it. */
    private final Function<NewJob, CompletableFuture<SubmitOutcome>> submitter;
    /** Throws the 503 overloaded problem while the workers' backlog is over its bound. */
    private final Runnable admitSubmission;
    private final JobWaits waits;
    private final Duration maxWait;

    JobsApi(Ledger ledger,
            Function<NewJob, CompletableFuture<SubmitOutcome>> submitter,
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
    void submit(HttpCall exchange, Principal caller, Executor executor, Later later)
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
    void submitThenAnswer(HttpCall exchange, NewJob job, Executor executor, Later later,
                          Answerer answerer) {
        exchange.later();
        submitter.apply(job).whenCompleteAsync((outcome, error) -> {
            boolean answered = true;
            try {
                if (error != null) {
                    later.failed(exchange, error instanceof CompletionException
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
     * What every job-creating request passes before its body is read, once its route has checked the submit role:
     * the owner's rate limit, and the front door's admission (503 while the workers' backlog is over its bound).
     */
    void admit(Principal caller) {
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
            log.debug("event=job_created channel=http job={} owner={} attempt={} provider={}", created.job().id(),
                    caller.ownerId(), created.firstAttempt().id(), created.firstAttempt().provider());
            exchange.setHeader("Location", "/v1/jobs/" + created.job().id());
            if (wait.isPresent()) {
                waits.answerWhenFinished(exchange, created.job().id(), wait.get(), 201, JobsApi::jobView, later);
                return false;
            }
            Exchanges.sendJson(exchange, 201, JobJson.job(created.job(), List.of(created.firstAttempt())));
        } else if (outcome instanceof SubmitOutcome.Replayed replayed) {
            metrics.submitted("http", "replayed");
            log.debug("event=job_replayed channel=http job={} owner={}", replayed.job().id(), caller.ownerId());
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
            Exchanges.sendJson(exchange, 200, JobJson.job(replayed.job(), ledger.lookups().attempts(replayed.job().id()),
                    ledger.interventions().operatorActions(replayed.job().id())));
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
        Job job = ledger.lookups().jobForKey(caller.ownerId(), key).orElseThrow(() ->
                Problem.notFound("you have no job with that idempotency key"));
        Exchanges.sendJson(exchange, 200, view(job));
    }

    void cancel(HttpCall exchange, Principal caller, String id) throws IOException {
        Job job = ownedJob(caller, id);
        TransitionOutcome outcome = ledger.interventions().cancelJob(job.id(), "cancelled by " + caller.ownerId());
        if (outcome instanceof TransitionOutcome.NotApplied notApplied) {
            throw jobFinished(job.id(), notApplied.current());
        }
        Job after = ledger.lookups().job(job.id()).orElseThrow();
        Exchanges.sendJson(exchange, 200, JobJson.job(after, ledger.lookups().attempts(job.id()), ledger.interventions().operatorActions(job.id())));
    }

    /** A job as a submission's answer shows it. */
    private static ObjectNode jobView(JobHistory history) {
        return JobJson.job(history.job(), history.attempts(), history.actions());
    }

    /** The job with its attempts and whether its target is certified for its contract (shown, never enforced). */
    private ObjectNode view(Job job) {
        return view(new JobHistory(job, ledger.lookups().attempts(job.id()), ledger.interventions().operatorActions(job.id())));
    }

    private ObjectNode view(JobHistory history) {
        Job job = history.job();
        var node = JobJson.job(job, history.attempts(), history.actions());
        var certification = node.putObject("target_certification");
        Optional<String> whyNot = gate.whyNot(job, job.targetProvider());
        certification.put("certified", whyNot.isEmpty());
        if (whyNot.isPresent()) {
            certification.put("reason", whyNot.get());
        } else {
            certification.putNull("reason");
        }
        return node;
    }

    Job ownedJob(Principal caller, String id) {
        return uuid(id).flatMap(ledger.lookups()::job).filter(job -> job.ownerId().equals(caller.ownerId()))
                .orElseThrow(() -> Problem.notFound("no such job"));
    }

    static Optional<UUID> uuid(String text) {
        try {
            return Optional.of(UUID.fromString(text));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    static Problem jobFinished(UUID jobId, String status) {
        return new Problem(409, "job-finished", "The job is finished", "job " + jobId + " is already " + status)
                .with("job_status", status);
    }
}
