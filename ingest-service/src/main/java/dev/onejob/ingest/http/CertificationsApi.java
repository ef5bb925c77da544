package dev.onejob.ingest.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.http.HttpCall;
import dev.onejob.core.certification.Certification;
import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.json.Json;
import dev.onejob.ingest.Principal;
import dev.onejob.providers.certify.CertificationReport;
import dev.onejob.providers.certify.CertificationRunner;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * {@code POST /v1/certifications} (role operate) certifies a provider for a contract, or every pair, on demand,
 * through the worker's own adapters, and stores the result; {@code GET /v1/certifications} lists the newest result
 * per (provider, contract).
 */
final class CertificationsApi {
    private final CertificationRunner runner;
    private final CertificationStore store;
    private final int maxBodyBytes;

    CertificationsApi(CertificationRunner runner, CertificationStore store, int maxBodyBytes) {
        this.runner = runner;
        this.store = store;
        this.maxBodyBytes = maxBodyBytes;
    }

    void certify(HttpCall exchange, Principal caller) throws IOException {
        if (!caller.may(Principal.OPERATE)) {
            throw Problem.forbidden("this token lacks the 'operate' role");
        }
        JsonNode body = Exchanges.json(Exchanges.body(exchange, maxBodyBytes));
        Optional<String> provider = text(body, "provider");
        Optional<String> contract = text(body, "contract");
        boolean all = body.path("all").asBoolean(false);
        if (!all && (provider.isEmpty() || contract.isEmpty())) {
            throw Problem.invalidRequest("give 'provider' and 'contract', or 'all': true",
                    List.of("'provider' and 'contract' are required unless 'all' is true"));
        }
        List<CertificationReport> reports;
        try {
            reports = runner.run(provider, contract);
        } catch (IllegalArgumentException e) {
            throw Problem.invalidRequest(e.getMessage(), List.of(e.getMessage()));
        }
        ArrayNode results = Json.MAPPER.createArrayNode();
        reports.forEach(report -> results.add(json(report.toCertification())));
        ObjectNode answer = Json.object();
        answer.set("certifications", results);
        Exchanges.sendJson(exchange, 200, answer);
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
