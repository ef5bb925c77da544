package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.ProviderProtocol;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Passthrough;
import dev.onejob.core.contract.Prompt;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.IdempotencyKey;
import dev.onejob.core.ledger.Job;
import dev.onejob.core.ledger.JobStatus;
import dev.onejob.core.ledger.LedgerQueries;
import dev.onejob.core.ledger.LedgerQueries.JobHistory;
import dev.onejob.core.ledger.SubmitOutcome;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.JobRequests;
import dev.onejob.ingest.Principal;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drop-in endpoints: {@code POST /v1/chat/completions} (OpenAI) and {@code POST /v1/messages} (Anthropic). Each
 * call is a job of the built-in {@link Passthrough} contract, named by the caller's {@code Idempotency-Key}, routed
 * by its {@code model} alias ({@code providers.yaml}), and answered in the provider's shape once the job is finished.
 *
 * <p>A call whose wait ends before its job is finished is answered 504 with the job and its state, and
 * {@code x-should-retry: false}, which the official SDKs honour: they do not retry it blindly. A retry with the same
 * key attaches to the same job and never starts a second one. Every error here carries that header too (except 429
 * and 503, after which nothing was written and a retry is what the caller should do) and, besides the problem
 * members, an {@code error} object as the SDKs read it ({@link DropInProblems}).
 */
final class DropInApi {
    static final String CHAT_COMPLETIONS = "/v1/chat/completions";
    static final String MESSAGES = "/v1/messages";
    static final ChatCompletionsFormat OPENAI = new ChatCompletionsFormat();
    static final MessagesFormat ANTHROPIC = new MessagesFormat();
    private static final Logger log = LoggerFactory.getLogger(DropInApi.class);

    private final JobsApi jobs;
    private final JobRequests requests;
    private final Providers providers;
    private final LedgerQueries queries;
    private final JobWaits waits;
    private final DropInStreams streams;
    private final IngestMetrics metrics;
    private final int maxBodyBytes;
    private final Duration maxWait;

    DropInApi(JobsApi jobs, JobRequests requests, Providers providers, LedgerQueries queries, JobWaits waits,
              DropInStreams streams, IngestMetrics metrics, int maxBodyBytes, Duration maxWait) {
        this.jobs = jobs;
        this.requests = requests;
        this.providers = providers;
        this.queries = queries;
        this.waits = waits;
        this.streams = streams;
        this.metrics = metrics;
        this.maxBodyBytes = maxBodyBytes;
        this.maxWait = maxWait;
    }

    /**
     * Validates the call on this thread, submits its job through group commit and returns: the answer is sent once
     * the job is finished or the wait is over, and no thread waits meanwhile.
     */
    void call(HttpCall exchange, Principal caller, DropInFormat format, Executor executor, JobsApi.Later later)
            throws IOException {
        jobs.admit(caller);
        String key = exchange.header("Idempotency-Key");
        if (key == null) {
            throw DropInProblems.missingKey(format);
        }
        IdempotencyKey.problem(key).ifPresent(reason -> {
            throw new Problem(400, "idempotency-key-invalid", "Invalid Idempotency-Key", reason);
        });
        DropInFormat.Call call = format.read(requestBody(exchange));
        if (!call.problems().isEmpty()) {
            metrics.submitted("http", "invalid");
            throw DropInProblems.invalid(call.problems());
        }
        Providers.Route route = providers.alias(call.model()).orElseThrow(() -> new Problem(404, "model-not-found",
                "Unknown model alias", "model '" + call.model() + "' is not an alias of providers.yaml; the aliases "
                + "are " + providers.aliases().keySet()));
        List<String> usable = honouring(call.model(), route, call.variables());
        ObjectNode request = Json.object();
        request.put("contract", Passthrough.ID);
        request.set("variables", call.variables());
        request.put("target", usable.get(0));
        usable.subList(1, usable.size()).forEach(request.putArray("fallbacks")::add);
        JobRequests.Validated validated = requests.validate(caller.ownerId(), key, request);
        if (!validated.isValid()) {
            metrics.submitted("http", "invalid");
            throw DropInProblems.invalid(validated.problems());
        }
        Duration wait = Prefer.waitFor(exchange.headers("Prefer"), maxWait).orElse(maxWait);
        jobs.submitThenAnswer(exchange, validated.job(), executor, later,
                outcome -> submitted(exchange, caller, format, call, outcome, wait, later));
    }

    /**
     * The alias's providers, in order, that can honour the call: all of them, unless the call has a parameter only
     * one protocol takes ({@link Prompt#OPENAI_OPTIONS}, {@link Prompt#ANTHROPIC_OPTIONS}), which no translation
     * could keep; then those of that protocol, or a 400 naming the parameters when the alias has none.
     */
    private List<String> honouring(String model, Providers.Route route, JsonNode variables) {
        List<String> all = new ArrayList<>();
        all.add(route.target());
        all.addAll(route.fallbacks());
        Optional<ProviderProtocol> only = Passthrough.onlyFor(variables);
        if (only.isEmpty()) {
            return all;
        }
        List<String> usable = all.stream().filter(id -> providers.find(id).map(ProviderConfig::protocol)
                .orElse(null) == only.get()).toList();
        if (usable.isEmpty()) {
            throw DropInProblems.invalid(List.of(Passthrough.protocolOnly(variables) + ": only "
                    + only.get().wireName() + " providers take them, and model '" + model + "' names none of "
                    + all));
        }
        return usable;
    }

    private JsonNode requestBody(HttpCall exchange) throws IOException {
        JsonNode body = Exchanges.json(Exchanges.body(exchange, maxBodyBytes));
        if (!body.isObject()) {
            throw DropInProblems.invalid(List.of("the request body must be a JSON object"));
        }
        return body;
    }

    /**
     * The job is written (or was already): answers now if it is finished (true), else hands the exchange to a wait
     * or a stream (false), which answers when the job is finished or the wait is over.
     */
    private boolean submitted(HttpCall exchange, Principal caller, DropInFormat format, DropInFormat.Call call,
                           SubmitOutcome outcome, Duration wait, JobsApi.Later later) throws IOException {
        Job job;
        if (outcome instanceof SubmitOutcome.Created created) {
            metrics.submitted("http", "created");
            job = created.job();
            log.debug("event=job_created channel=http format={} job={} owner={} attempt={} provider={}", format.name(),
                    job.id(), caller.ownerId(), created.firstAttempt().id(), created.firstAttempt().provider());
        } else if (outcome instanceof SubmitOutcome.Replayed replayed) {
            metrics.submitted("http", "replayed");
            job = replayed.job();
            exchange.setHeader("Idempotent-Replayed", "true");
            log.debug("event=job_replayed channel=http format={} job={} owner={}", format.name(), job.id(),
                    caller.ownerId());
        } else if (outcome instanceof SubmitOutcome.Conflict conflict) {
            metrics.submitted("http", "conflict");
            throw JobsApi.keyReused(conflict.existingJobId());
        } else if (outcome instanceof SubmitOutcome.OverLimit over) {
            metrics.submitted("http", over.limit() == SubmitOutcome.OverLimit.Limit.SPEND_CAP ? "over-budget"
                    : "over-live-limit");
            throw JobsApi.overLimit(over);
        } else {
            metrics.submitted("http", "refused");
            log.error("event=job_refused channel=http owner={} reason=\"{}\"", caller.ownerId(),
                    ((SubmitOutcome.Refused) outcome).reason());
            throw new Problem(500, "internal", "Internal error", "the server could not store the request; nothing "
                    + "was written");
        }
        exchange.setHeader("Location", "/v1/jobs/" + job.id());
        exchange.setHeader(JOB_HEADER, job.id().toString());
        DropInFormat.Finished.Head head = head(format, job, call.model());
        if (call.stream()) {
            if (job.status().isFinished() && job.status() != JobStatus.SUCCEEDED) {
                throw DropInProblems.unfinishedOrFailed(history(job.id()));
            }
            streams.follow(exchange, job.id(), format.stream(head, call.includeUsage()), wait, later);
            return false;
        }
        if (job.status().isFinished()) {
            answer(exchange, format, head, history(job.id()));
            return true;
        }
        waits.whenFinished(exchange, job.id(), wait, history -> answer(exchange, format, head, history), later);
        return false;
    }

    private JobHistory history(UUID jobId) {
        return queries.history(jobId).orElseThrow(() -> Problem.notFound("no such job"));
    }

    /** The provider-shaped answer of a succeeded job, or the problem that says where the job is. */
    private static void answer(HttpCall exchange, DropInFormat format, DropInFormat.Finished.Head head,
                               JobHistory history) throws IOException {
        Optional<DropInFormat.Finished> finished = succeeded(head, history);
        if (finished.isEmpty()) {
            throw DropInProblems.unfinishedOrFailed(history);
        }
        exchange.setHeader(ATTEMPT_HEADER, history.job().completedBy().toString());
        Exchanges.sendJson(exchange, 200, format.answer(finished.get()));
    }

    static final String JOB_HEADER = "onejob-job-id";
    static final String ATTEMPT_HEADER = "onejob-attempt-id";

    /**
     * The answer of a succeeded job: its text, and the winning attempt's usage and finish reason; empty for any other
     * job.
     */
    static Optional<DropInFormat.Finished> succeeded(DropInFormat.Finished.Head head, JobHistory history) {
        Job job = history.job();
        if (job.status() != JobStatus.SUCCEEDED || job.result() == null) {
            return Optional.empty();
        }
        Attempt winner = history.attempts().stream().filter(a -> a.id().equals(job.completedBy())).findFirst()
                .orElse(null);
        List<JsonNode> toolCalls = new ArrayList<>();
        if (!structured(job)) {
            job.result().path(Prompt.TOOL_CALLS).forEach(toolCalls::add);
        }
        return Optional.of(new DropInFormat.Finished(head, text(job), winner == null ? null : winner.usage(),
                winner == null ? null : winner.finishReason(), toolCalls));
    }

    /** A free-text answer's text, or a structured answer as JSON. */
    static String text(Job job) {
        return structured(job) ? Json.write(job.result()) : job.result().path(Prompt.TEXT).asText();
    }

    private static boolean structured(Job job) {
        return Passthrough.structured(job.request().path("variables"));
    }

    static DropInFormat.Finished.Head head(DropInFormat format, Job job, String model) {
        String id = format == ANTHROPIC ? "msg_" + job.id().toString().replace("-", "") : "chatcmpl-" + job.id();
        return new DropInFormat.Finished.Head(id, model, job.createdAt().getEpochSecond());
    }
}
