package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.certification.Certification;
import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.certification.CertificationRequests;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.json.Json;
import dev.onejob.ingest.Principal;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * {@code POST /v1/certifications} (role operate) asks the workers to certify a provider for a contract, or every
 * pair: it records a request and its command through the outbox ({@link CertificationRequests}), then waits up to
 * {@code CERTIFY_WAIT} for a worker to finish it and answers 200 with the request's stored runs, or 202 with the
 * request id when the worker takes longer (the runs land all the same). No thread waits meanwhile: the request is
 * looked at again every 200 ms on the server's threads ({@link JobWatch#schedule}). The ingest service holds no
 * provider key and calls no provider. {@code GET /v1/certifications} lists the newest result per (provider, contract).
 */
final class CertificationsApi {
    /** How often a waiting request looks at its certification request again. */
    private static final Duration RECHECK = Duration.ofMillis(200);

    private final CertificationRequests requests;
    private final CertificationStore store;
    private final Providers providers;
    private final Contracts contracts;
    private final JobWatch timer;
    private final Duration wait;
    private final int maxBodyBytes;

    CertificationsApi(CertificationRequests requests, CertificationStore store, Providers providers,
                      Contracts contracts, JobWatch timer, Duration wait, int maxBodyBytes) {
        this.requests = requests;
        this.store = store;
        this.providers = providers;
        this.contracts = contracts;
        this.timer = timer;
        this.wait = wait;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** Validates and records the request on this thread, then answers later: {@code later} records the request. */
    void certify(HttpCall exchange, Principal caller, JobsApi.Later later) throws IOException {
        JsonNode body = Exchanges.json(Exchanges.body(exchange, maxBodyBytes));
        Optional<String> provider = text(body, "provider");
        Optional<String> contract = text(body, "contract");
        boolean all = body.path("all").asBoolean(false);
        if (!all && (provider.isEmpty() || contract.isEmpty())) {
            throw Problem.invalidRequest("give 'provider' and 'contract', or 'all': true",
                    List.of("'provider' and 'contract' are required unless 'all' is true"));
        }
        if (provider.isPresent() && providers.find(provider.get()).isEmpty()) {
            throw unknown("no provider '" + provider.get() + "' in the providers file; known: ",
                    providers.all().stream().map(ProviderConfig::id).toList());
        }
        if (contract.isPresent() && contracts.find(contract.get()).isEmpty()) {
            throw unknown("no contract '" + contract.get() + "' in the contracts directory; known: ",
                    contracts.all().stream().map(Contract::id).toList());
        }
        UUID id = requests.request(provider, contract, "operator:" + caller.ownerId()).requestId();
        exchange.later();
        timer.schedule(new Waiting(exchange, id, System.nanoTime() + wait.toNanos(), later), RECHECK);
    }

    /** One request waiting for a worker: looked at again until it is finished or its wait is over. */
    private final class Waiting implements Runnable {
        private final HttpCall exchange;
        private final UUID id;
        private final long deadline;
        private final JobsApi.Later later;

        Waiting(HttpCall exchange, UUID id, long deadline, JobsApi.Later later) {
            this.exchange = exchange;
            this.id = id;
            this.deadline = deadline;
            this.later = later;
        }

        @Override
        public void run() {
            try {
                Optional<CertificationRequests.Request> finished = requests.find(id)
                        .filter(CertificationRequests.Request::finished);
                if (finished.isEmpty() && System.nanoTime() < deadline) {
                    timer.schedule(this, RECHECK);
                    return;
                }
                answer(exchange, id, finished);
            } catch (RuntimeException | IOException e) {
                later.failed(exchange, e);
            }
            later.finished(exchange);
        }
    }

    /** 200 with the runs a worker recorded under the request, 202 while it runs, 422 when it could not run it. */
    private void answer(HttpCall exchange, UUID id, Optional<CertificationRequests.Request> finished)
            throws IOException {
        ObjectNode answer = Json.object();
        answer.put("request_id", id.toString());
        if (finished.isEmpty()) {
            answer.put("status", "running");
            answer.putArray("certifications");
            Exchanges.sendJson(exchange, 202, answer);
            return;
        }
        if (finished.get().error().isPresent()) {
            // The worker's files do not know what this service's files do: a configuration skew, said as it is.
            String error = "the worker could not run it: " + finished.get().error().get();
            throw Problem.invalidRequest(error, List.of(error));
        }
        ArrayNode results = answer.putArray("certifications");
        store.forRequest(id).forEach(run -> results.add(json(run)));
        Exchanges.sendJson(exchange, 200, answer);
    }

    private static Problem unknown(String what, Collection<String> known) {
        String detail = what + String.join(", ", known);
        return Problem.invalidRequest(detail, List.of(detail));
    }

    void list(HttpCall exchange) throws IOException {
        ArrayNode results = Json.MAPPER.createArrayNode();
        store.latestPerProviderAndContract().forEach(c -> results.add(json(c)));
        ObjectNode answer = Json.object();
        answer.set("certifications", results);
        Exchanges.sendJson(exchange, 200, answer);
    }

    static ObjectNode json(Certification certification) {
        ObjectNode node = Json.object();
        node.put("id", certification.id().toString());
        node.put("provider", certification.provider());
        node.put("model", certification.model());
        node.put("contract", certification.contractId());
        node.put("contract_version", certification.contractVersion());
        node.put("passed", certification.passed());
        node.put("repetitions", certification.repetitions());
        node.put("started_at", certification.startedAt().toString());
        node.put("finished_at", certification.finishedAt().toString());
        ArrayNode checks = node.putArray("checks");
        for (CertificationCheck check : certification.checks()) {
            ObjectNode c = checks.addObject();
            c.put("name", check.name());
            c.put("passed", check.passed());
            c.put("summary", check.summary());
            c.set("evidence", check.evidence());
        }
        node.put("report", certification.report());
        return node;
    }

    private static Optional<String> text(JsonNode body, String field) {
        JsonNode value = body.get(field);
        return value != null && value.isTextual() && !value.asText().isBlank() ? Optional.of(value.asText())
                : Optional.empty();
    }
}
