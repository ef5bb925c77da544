package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.core.ledger.Job;
import dev.onejob.core.ledger.JobStatus;
import dev.onejob.core.ledger.LedgerQueries.JobHistory;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The problems of the drop-in endpoints ({@link DropInApi}) as the OpenAI and Anthropic SDKs read them: where a job
 * with no answer stands, a call that cannot be passed through, a missing key, and every error of the drop-in routes
 * shaped with an {@code error} object and {@code x-should-retry}, and the request id every drop-in answer carries.
 */
final class DropInProblems {
    private DropInProblems() {
    }

    /**
     * Where a job that has no answer to give stands: FAILED (422 when its answer broke the contract, else 502),
     * CANCELLED (409), or not finished when the wait ended (504). Each names the job and its last attempt.
     */
    static Problem unfinishedOrFailed(JobHistory history) {
        Job job = history.job();
        Attempt last = history.attempts().isEmpty() ? null : history.attempts().get(history.attempts().size() - 1);
        Problem problem;
        if (job.status() == JobStatus.FAILED) {
            boolean contract = "contract_violation".equals(job.errorCode())
                    || last != null && "contract_violation".equals(last.errorCode());
            String detail = "job " + job.id() + " FAILED: " + job.errorMessage() + "; a retry with the same "
                    + "Idempotency-Key returns this answer again, a new key starts a new job";
            problem = contract ? new Problem(422, "contract-violation", "The answer broke the contract", detail)
                    : new Problem(502, "job-failed", "The job failed", detail);
        } else if (job.status() == JobStatus.CANCELLED) {
            problem = new Problem(409, "job-cancelled", "The job was cancelled", "job " + job.id()
                    + " was cancelled; a new key starts a new job");
        } else {
            String attempt = last == null ? "" : "; its attempt " + last.id() + " on " + last.provider() + " is "
                    + last.status() + (last.status() == AttemptStatus.PENDING
                    && last.notBefore() != null ? ", a retry that starts at " + last.notBefore()
                    + " (the provider refused the attempt before it)" : "");
            problem = new Problem(504, "job-not-finished", "The job is not finished yet", "job " + job.id() + " is "
                    + job.status() + attempt + (last != null && last.status().name().equals("UNKNOWN")
                    ? " (the provider may still answer; an operator may resolve it)" : "")
                    + "; a retry with the same Idempotency-Key attaches to this job and never starts a second one");
        }
        problem.with("job_id", job.id().toString()).with("job_status", job.status().name());
        if (last != null) {
            problem.with("attempt_id", last.id().toString()).with("attempt_status", last.status().name());
        }
        return problem.with("attempts", attemptsInBrief(history.attempts()));
    }

    /** Each attempt of the job and why it ended: retries and failovers, as the caller's error names them. */
    private static ArrayNode attemptsInBrief(List<Attempt> attempts) {
        var brief = Json.MAPPER.createArrayNode();
        for (Attempt attempt : attempts) {
            ObjectNode one = brief.addObject().put("id", attempt.id().toString()).put("provider", attempt.provider())
                    .put("status", attempt.status().name());
            if (attempt.errorCode() != null) {
                one.put("error_code", attempt.errorCode());
            }
            if (attempt.notBefore() != null) {
                one.put("not_before", attempt.notBefore().toString());
            }
        }
        return brief;
    }

    static Problem invalid(List<String> problems) {
        return new Problem(400, "invalid-call", "The call cannot be passed through",
                "the call cannot be passed through: " + String.join("; ", problems)).withErrors(problems);
    }

    static Problem missingKey(DropInFormat format) {
        String sdk = format == DropInApi.ANTHROPIC ? "Anthropic" : "OpenAI";
        String detail = "every call needs an Idempotency-Key header naming the user's intent (the same key on every "
                + "retry of it, a new key for a new intent); onejob makes one job per key. With the " + sdk
                + " SDK, per request: Python extra_headers={\"Idempotency-Key\": key}; Java "
                + "RequestOptions or params.toBuilder().putAdditionalHeader(\"Idempotency-Key\", key); TypeScript "
                + "{ headers: { \"Idempotency-Key\": key } }. As a default for a client whose calls each name one "
                + "intent: default_headers (Python), defaultHeaders (TypeScript), putHeader (Java). See "
                + "docs/drop-in.md";
        return new Problem(400, "idempotency-key-missing", "Idempotency-Key header required", detail);
    }

    /**
     * A problem as the drop-in endpoints send it (their routes' error shape): the problem members, an {@code error}
     * object as the caller's SDK reads it ({@link #error(Problem, boolean)}), and {@code x-should-retry: false} except
     * after 429 and 503, when nothing was written. The caller speaks Anthropic's dialect on {@code /v1/messages}, or
     * when it sends {@code anthropic-version} (the Anthropic SDKs listing models); OpenAI's otherwise.
     */
    static Problem shaped(HttpCall exchange, Problem problem) {
        requestId(exchange);
        if (problem.status() != 429 && problem.status() != 503) {
            exchange.setHeader("x-should-retry", "false");
        }
        if (problem.status() == 504) {
            exchange.setHeader("Retry-After", "5");
        }
        boolean anthropic = DropInApi.MESSAGES.equals(exchange.rawPath()) || exchange.header("anthropic-version") != null;
        return problem.with("error", error(problem, anthropic));
    }

    /**
     * Names this answer for the caller's logs and support requests, as the providers do: {@code x-request-id}
     * (OpenAI's SDKs read it) and {@code request-id} (Anthropic's), one new id for both. An answer gets it once;
     * an error after the call's code had set one replaces it, so an answer never carries two.
     */
    static void requestId(HttpCall exchange) {
        String id = "req_" + UUID.randomUUID().toString().replace("-", "");
        exchange.setHeader("x-request-id", id);
        exchange.setHeader("request-id", id);
    }

    /**
     * The {@code error} object of a problem as the caller's SDK reads it: {@code message}; {@code type}, the
     * provider's own error type for the status (OpenAI's or Anthropic's); OpenAI's {@code param} (the request field
     * at fault, or null); {@code code}, onejob's reason ({@code job_not_finished}, {@code idempotency_key_missing},
     * ...); and the job's members ({@code job_id}, {@code job_status}, {@code attempt_id}, {@code attempt_status},
     * {@code attempts}) beside them.
     */
    static ObjectNode error(Problem problem, boolean anthropic) {
        ObjectNode error = Json.object();
        error.put("message", problem.getMessage());
        error.put("type", errorType(problem.status(), anthropic));
        if (!anthropic) {
            JsonNode param = problem.extension("param");
            error.set("param", param == null ? Json.MAPPER.nullNode() : param);
        }
        error.put("code", problem.type().replace('-', '_'));
        for (String member : List.of("job_id", "job_status", "attempt_id", "attempt_status", "attempts")) {
            JsonNode value = problem.extension(member);
            if (value != null) {
                error.set(member, value);
            }
        }
        return error;
    }

    /**
     * The providers' own error types by status, OpenAI's then Anthropic's; any other status is
     * {@code invalid_request_error} below 500, {@code server_error} / {@code api_error} from 500.
     */
    private static final Map<Integer, List<String>> TYPES = Map.of(
            401, List.of("authentication_error", "authentication_error"),
            402, List.of("invalid_request_error", "billing_error"),
            403, List.of("permission_error", "permission_error"),
            404, List.of("not_found_error", "not_found_error"),
            413, List.of("invalid_request_error", "request_too_large"),
            429, List.of("rate_limit_error", "rate_limit_error"),
            503, List.of("service_unavailable_error", "overloaded_error"),
            504, List.of("timeout_error", "timeout_error"));

    /** The error type of {@code status} in OpenAI's dialect, or Anthropic's. */
    static String errorType(int status, boolean anthropic) {
        List<String> types = TYPES.get(status);
        if (types != null) {
            return types.get(anthropic ? 1 : 0);
        }
        return status < 500 ? "invalid_request_error" : anthropic ? "api_error" : "server_error";
    }
}
