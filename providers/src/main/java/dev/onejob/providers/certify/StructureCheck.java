package dev.onejob.providers.certify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.json.CanonicalJson;
import dev.onejob.core.json.Json;
import dev.onejob.providers.CallOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code structure} check: every golden input, in every repetition, got an answer the contract accepts and
 * that has the golden {@code expect} fields exactly.
 *
 * <p>Consumes the contract and its {@link GoldenCall}s; produces one {@link CertificationCheck}. Pure. "Accepts"
 * is the adapter's own verdict: a {@code Succeeded} outcome is valid JSON, valid against the output schema and has
 * no invented top-level key; anything else (a {@code contract_violation} with its offending answer, an HTTP error, a
 * timeout) fails the check. Expected values are compared as canonical JSON, so {@code 1} equals {@code 1.0}. The
 * evidence lists every failing call (at most {@value #MAX_LISTED}) with its input, repetition and answer or error.
 */
final class StructureCheck {
    static final String NAME = "structure";
    static final int MAX_LISTED = 20;

    private StructureCheck() {
    }

    static CertificationCheck check(Contract contract, List<GoldenCall> calls) {
        if (contract.golden().isEmpty()) {
            return CertificationCheck.of(NAME, false, "the contract has no golden inputs, so nothing shows the "
                    + "provider can answer it", null);
        }
        List<String> failures = new ArrayList<>();
        ArrayNode listed = Json.MAPPER.createArrayNode();
        for (GoldenCall call : calls) {
            Optional<String> problem = problem(contract, call);
            if (problem.isPresent()) {
                failures.add(call.where() + ": " + problem.get());
                if (listed.size() < MAX_LISTED) {
                    listed.add(call.toJson().put("problem", problem.get()));
                }
            }
        }
        ObjectNode details = Json.object().put("calls", calls.size()).put("inputs", contract.golden().size());
        details.set("failures", listed);
        if (failures.isEmpty()) {
            return CertificationCheck.of(NAME, true, calls.size() + " answers (" + contract.golden().size()
                    + " golden inputs x " + repetitions(calls) + ") valid and as expected", details);
        }
        return CertificationCheck.of(NAME, false, failures.size() + " of " + calls.size() + " answers failed; first: "
                + Text.shorten(failures.get(0)), details);
    }

    /** Why this call's answer does not pass, if it does not. */
    static Optional<String> problem(Contract contract, GoldenCall call) {
        if (!(call.outcome() instanceof CallOutcome.Succeeded succeeded)) {
            return Optional.of(call.describeOutcome());
        }
        JsonNode expect = contract.golden().get(call.input()).expect();
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, JsonNode> field : expect.properties()) {
            JsonNode actual = succeeded.result().get(field.getKey());
            if (actual == null || !canonical(actual).equals(canonical(field.getValue()))) {
                wrong.add(field.getKey() + " is " + (actual == null ? "missing" : Json.write(actual)) + ", expected "
                        + Json.write(field.getValue()));
            }
        }
        return wrong.isEmpty() ? Optional.empty()
                : Optional.of(String.join("; ", wrong) + "; answer " + Json.write(succeeded.result()));
    }

    private static String canonical(JsonNode value) {
        return CanonicalJson.canonicalize(value);
    }

    private static int repetitions(List<GoldenCall> calls) {
        return calls.isEmpty() ? 0 : calls.get(0).repetitions();
    }
}
