package dev.onejob.ingest.http;

import static dev.onejob.ingest.http.QueryParameters.allowOnly;
import static dev.onejob.ingest.http.QueryParameters.badRequest;
import static dev.onejob.ingest.http.QueryParameters.blankToNull;
import static dev.onejob.ingest.http.QueryParameters.cursor;
import static dev.onejob.ingest.http.QueryParameters.duration;
import static dev.onejob.ingest.http.QueryParameters.limit;
import static dev.onejob.ingest.http.QueryParameters.owner;
import static dev.onejob.ingest.http.QueryParameters.parseEnum;
import static dev.onejob.ingest.http.QueryParameters.time;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.contract.Passthrough;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.AttemptStatus;
import dev.onejob.core.ledger.JobStatus;
import dev.onejob.core.ledger.LedgerQueries;
import dev.onejob.core.ledger.LedgerQueries.JobFilter;
import dev.onejob.core.ledger.LedgerQueries.Page;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.Principal;
import dev.onejob.ingest.ProviderCooldowns;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Finding things: {@code GET /v1/jobs} with filters, {@code /v1/attempts} (the UNKNOWN queue), {@code /v1/races},
 * {@code /v1/providers}, {@code /v1/contracts}, {@code /v1/stats} and {@code /v1/whoami}. Everyone sees their own
 * jobs; operators see every owner's and may filter by one. Lists are keyset-paginated: a page's {@code next_cursor}
 * is sent back as {@code cursor}. A parameter this server does not know is refused, not ignored, so a typo never
 * reads as "no filter".
 */
final class FindApi {
    private static final Duration RECENT_FAILURES = Duration.ofHours(1);

    private final LedgerQueries queries;
    private final CertificationStore certifications;
    private final Providers providers;
    private final Contracts contracts;
    private final IngestMetrics metrics;
    private final JobWatch watch;

    private final ProviderCooldowns cooldowns;

    FindApi(LedgerQueries queries, CertificationStore certifications, Providers providers, Contracts contracts,
            IngestMetrics metrics, JobWatch watch, ProviderCooldowns cooldowns) {
        this.cooldowns = cooldowns;
        this.queries = queries;
        this.certifications = certifications;
        this.providers = providers;
        this.contracts = contracts;
        this.metrics = metrics;
        this.watch = watch;
    }

    void jobs(HttpCall exchange, Principal caller) throws IOException {
        Map<String, String> query = Exchanges.query(exchange);
        allowOnly(query, "status", "provider", "created_after", "created_before", "key_prefix", "owner", "limit",
                "cursor");
        Set<JobStatus> statuses = EnumSet.noneOf(JobStatus.class);
        String status = query.get("status");
        if (status != null && !status.isEmpty()) {
            for (String one : status.split(",")) {
                statuses.add(parseEnum(JobStatus.class, "status", one.strip()));
            }
        }
        String prefix = query.get("key_prefix");
        if (prefix != null && !prefix.chars().allMatch(c -> c >= 0x20 && c <= 0x7e)) {
            throw badRequest("'key_prefix' must be printable ASCII, as idempotency keys are");
        }
        JobFilter filter = new JobFilter(owner(caller, query), statuses, blankToNull(query.get("provider")),
                time(query, "created_after"), time(query, "created_before"), blankToNull(prefix));
        Page<LedgerQueries.JobSummary> page = queries.jobs(filter, limit(query), cursor(query));
        ObjectNode body = Json.object();
        ArrayNode list = body.putArray("jobs");
        for (LedgerQueries.JobSummary job : page.items()) {
            ObjectNode item = list.addObject();
            item.put("id", job.id().toString());
            item.put("owner_id", job.ownerId());
            item.put("idempotency_key", job.idempotencyKey());
            item.put("status", job.status().name());
            item.put("contract", job.contract());
            item.put("target", job.targetProvider());
            item.put("created_at", job.createdAt().toString());
            item.put("updated_at", job.updatedAt().toString());
            putTime(item, "finished_at", job.finishedAt());
        }
        next(body, page);
        Exchanges.sendJson(exchange, 200, body);
    }

    void attempts(HttpCall exchange, Principal caller) throws IOException {
        Map<String, String> query = Exchanges.query(exchange);
        allowOnly(query, "status", "older_than", "owner", "limit", "cursor");
        String statusText = query.getOrDefault("status", "UNKNOWN");
        AttemptStatus status = parseEnum(AttemptStatus.class, "status", statusText);
        if (status != AttemptStatus.UNKNOWN && status != AttemptStatus.STARTING) {
            throw badRequest("'status' must be UNKNOWN or STARTING: the attempts that wait; a job's other attempts"
                    + " are in GET /v1/jobs/{id}");
        }
        Page<LedgerQueries.OwnedAttempt> page = queries.liveAttempts(status, duration(query, "older_than"),
                owner(caller, query), limit(query), cursor(query));
        ObjectNode body = Json.object();
        ArrayNode list = body.putArray("attempts");
        for (LedgerQueries.OwnedAttempt owned : page.items()) {
            ObjectNode item = JobJson.attempt(owned.attempt());
            item.put("owner_id", owned.ownerId());
            item.put("idempotency_key", owned.idempotencyKey());
            list.add(item);
        }
        next(body, page);
        Exchanges.sendJson(exchange, 200, body);
    }

    void races(HttpCall exchange, Principal caller) throws IOException {
        Map<String, String> query = Exchanges.query(exchange);
        allowOnly(query, "since", "owner", "limit", "cursor");
        Instant since = time(query, "since");
        Page<LedgerQueries.Race> page = queries.races(since == null ? Instant.EPOCH : since, owner(caller, query),
                limit(query), cursor(query));
        ObjectNode body = Json.object();
        ArrayNode list = body.putArray("races");
        for (LedgerQueries.Race race : page.items()) {
            ObjectNode item = list.addObject();
            item.put("job_id", race.loser().jobId().toString());
            item.put("owner_id", race.ownerId());
            item.set("loser", brief(race.loser()));
            if (race.winner() == null) {
                item.putNull("winner");
            } else {
                item.set("winner", brief(race.winner()));
            }
            item.put("reason", race.loser().lostReason().wireName());
            item.put("discarded_result_sha256", race.loser().discardedResultSha256());
            putText(item, "discarded_result_summary", race.loser().discardedResultSummary());
            item.put("detected_at", race.loser().updatedAt().toString());
        }
        next(body, page);
        Exchanges.sendJson(exchange, 200, body);
    }

    /**
     * The providers, their certifications and cool-down, and their failures in the last hour: of the caller's own
     * jobs only (an error message can quote a provider's answer), or of every owner's for an operator.
     */
    void providers(HttpCall exchange, Principal caller) throws IOException {
        allowOnly(Exchanges.query(exchange));
        var latest = certifications.latestPerProviderAndContract();
        Instant since = Instant.now().minus(RECENT_FAILURES);
        ObjectNode body = Json.object();
        ArrayNode list = body.putArray("providers");
        for (ProviderConfig provider : providers.all()) {
            ObjectNode item = list.addObject();
            item.put("id", provider.id());
            item.put("protocol", provider.protocol().wireName());
            item.put("model", provider.model());
            putTime(item, "cooling_until", cooldowns.coolingUntil(provider.id()).orElse(null));
            ArrayNode certs = item.putArray("certifications");
            latest.stream().filter(c -> c.provider().equals(provider.id())).forEach(c -> {
                ObjectNode cert = certs.addObject();
                cert.put("id", c.id().toString());
                cert.put("contract", c.contractId());
                cert.put("contract_version", c.contractVersion());
                cert.put("current", contracts.find(c.contractId()).map(k -> k.version().equals(c.contractVersion()))
                        .orElse(false));
                cert.put("model", c.model());
                cert.put("passed", c.passed());
                cert.put("finished_at", c.finishedAt().toString());
            });
            ArrayNode failures = item.putArray("recent_failures");
            for (Attempt failed : queries.recentFailures(provider.id(),
                    caller.may(Principal.OPERATE) ? null : caller.ownerId(), since, 10)) {
                ObjectNode f = failures.addObject();
                f.put("attempt_id", failed.id().toString());
                f.put("job_id", failed.jobId().toString());
                putText(f, "error_code", failed.errorCode());
                putText(f, "error_message", failed.errorMessage());
                putTime(f, "at", failed.finishedAt());
            }
        }
        ObjectNode aliases = body.putObject("aliases");
        providers.aliases().forEach((name, route) -> {
            ArrayNode chain = aliases.putArray(name).add(route.target());
            route.fallbacks().forEach(chain::add);
        });
        Exchanges.sendJson(exchange, 200, body);
    }

    void contracts(HttpCall exchange) throws IOException {
        allowOnly(Exchanges.query(exchange));
        ObjectNode body = Json.object();
        ArrayNode list = body.putArray("contracts");
        // The files' contracts first: a form that offers the first one offers a template, not the built-in. The
        // tool-calling contract is certified against, never submitted.
        for (Contract contract : contracts.all().stream().filter(c -> !c.id().equals(Passthrough.TOOLS_ID))
                .sorted(Comparator.comparing(Contract::passthrough).thenComparing(Contract::id)).toList()) {
            ObjectNode item = list.addObject();
            item.put("id", contract.id());
            item.put("kind", contract.passthrough() ? "passthrough" : "template");
            item.put("version", contract.version());
            item.put("description", contract.description());
            item.set("variables_schema", contract.variablesSchema());
        }
        Exchanges.sendJson(exchange, 200, body);
    }

    /**
     * Counters for a live chart, over every owner's jobs: operators only (its route's role). Rates come from two
     * readings' difference.
     */
    void stats(HttpCall exchange) throws IOException {
        allowOnly(Exchanges.query(exchange));
        LedgerQueries.UnknownCount unknown = queries.unknownCount();
        ObjectNode body = Json.object();
        body.put("at", Instant.now().toString());
        body.put("jobs_submitted_total", metrics.submittedTotal());
        body.put("jobs_finished_total", metrics.finishedTotal());
        ObjectNode latency = body.putObject("submit_latency_ms");
        latency.put("p50", metrics.submitLatencyMillis(0.5));
        latency.put("p99", metrics.submitLatencyMillis(0.99));
        body.put("unknown_attempts", unknown.count());
        body.put("oldest_unknown_seconds", Math.round(unknown.oldestSeconds()));
        body.put("watching", watch.watching());
        Exchanges.sendJson(exchange, 200, body);
    }

    void whoami(HttpCall exchange, Principal caller) throws IOException {
        allowOnly(Exchanges.query(exchange));
        ObjectNode body = Json.object();
        body.put("owner_id", caller.ownerId());
        ArrayNode roles = body.putArray("roles");
        new TreeSet<>(caller.roles()).forEach(roles::add);
        Exchanges.sendJson(exchange, 200, body);
    }

    private static ObjectNode brief(Attempt attempt) {
        ObjectNode node = Json.object();
        node.put("attempt_id", attempt.id().toString());
        node.put("number", attempt.number());
        node.put("provider", attempt.provider());
        return node;
    }

    private static void next(ObjectNode body, Page<?> page) {
        putText(body, "next_cursor", page.nextCursor());
    }

    private static void putText(ObjectNode node, String field, String value) {
        if (value == null) {
            node.putNull(field);
        } else {
            node.put(field, value);
        }
    }

    private static void putTime(ObjectNode node, String field, Instant value) {
        putText(node, field, value == null ? null : value.toString());
    }
}
