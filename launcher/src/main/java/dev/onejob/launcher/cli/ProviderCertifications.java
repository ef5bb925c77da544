package dev.onejob.launcher.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.certification.Certification;
import dev.onejob.core.certification.CertificationGate;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.DatabaseException;
import dev.onejob.core.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether each provider is certified for each contract, as the failover gate would decide it now
 * ({@link CertificationGate}: the newest run for the configured model and the contract's current version passed,
 * recently enough). Consumes the providers, the contracts and the {@code certifications} table (read-only);
 * produces, per provider, one JSON object per contract: {@code contract, contract_version, certified, reason,
 * latest_run}. Owns nothing.
 */
final class ProviderCertifications {
    private ProviderCertifications() {
    }

    static Map<String, List<ObjectNode>> read(ReadOnlyDatabase database, Providers providers,
                                              Contracts contracts) {
        CertificationStore store = new CertificationStore(database.database());
        CertificationGate gate = new CertificationGate(store, contracts, providers);
        Map<String, List<ObjectNode>> byProvider = new LinkedHashMap<>();
        try {
            for (ProviderConfig provider : providers.all()) {
                List<ObjectNode> list = new ArrayList<>();
                for (Contract contract : contracts.all()) {
                    list.add(verdict(gate, store, provider, contract));
                }
                byProvider.put(provider.id(), list);
            }
        } catch (DatabaseException e) {
            throw database.failure(e);
        }
        return byProvider;
    }

    private static ObjectNode verdict(CertificationGate gate, CertificationStore store, ProviderConfig provider,
                                      Contract contract) {
        Optional<String> whyNot = gate.whyNot(contract.id(), provider.id());
        ObjectNode node = Json.object();
        node.put("contract", contract.id());
        node.put("contract_version", contract.version());
        node.put("certified", whyNot.isEmpty());
        node.put("reason", whyNot.orElse(null));
        Optional<Certification> latest = store.latest(provider.id(), contract.id());
        if (latest.isEmpty()) {
            node.putNull("latest_run");
        } else {
            Certification run = latest.get();
            ObjectNode last = node.putObject("latest_run");
            last.put("id", run.id().toString());
            last.put("model", run.model());
            last.put("contract_version", run.contractVersion());
            last.put("passed", run.passed());
            last.put("finished_at", run.finishedAt().toString());
            run.failedChecks().forEach(last.putArray("failed_checks")::add);
        }
        return node;
    }

    /** {@code passed at 2025-...T12:00Z with gpt-4o-mini}, or an empty string without a run. */
    static String latestRunText(ObjectNode certification) {
        var run = certification.path("latest_run");
        if (!run.isObject()) {
            return "";
        }
        return (run.path("passed").asBoolean() ? "passed" : "failed") + " at " + run.path("finished_at").asText()
                + " with " + run.path("model").asText();
    }
}
