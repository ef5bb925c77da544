package dev.onejob.providers.certify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Prompt;
import dev.onejob.core.json.CanonicalJson;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.JsonSchemas;
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
 * timeout) fails the check. Expected values are compared as canonical JSON, so {@code 1} equals {@code 1.0}. A
 * golden call that expects a tool ({@code expect: {tool: name}}) passes when the answer calls that tool, and only it,
 * with arguments valid against the tool's parameters schema (a tool it was not offered already fails the adapter's
 * own check). The
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
        Contract.GoldenInput golden = contract.golden().get(call.input());
        JsonNode expect = golden.expect();
        if (expect.has("tool")) {
            return toolProblem(golden.variables(), expect.get("tool").asText(), succeeded.result());
        }
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

    /** Why an answer is not a call of {@code expected} with arguments its parameters schema accepts, if it is not. */
    private static Optional<String> toolProblem(JsonNode variables, String expected, JsonNode answer) {
        JsonNode calls = answer.path(Prompt.TOOL_CALLS);
        if (!calls.isArray() || calls.isEmpty()) {
            return Optional.of("no tool call, expected a call of " + expected + "; answer " + Json.write(answer));
        }
        JsonNode parameters = null;
        for (JsonNode tool : variables.path("tools")) {
            if (expected.equals(tool.path("name").asText())) {
                parameters = tool.get("parameters");
            }
        }
        if (parameters == null) {
            return Optional.of("the golden call offers no tool " + expected);
        }
        JsonSchemas schema = JsonSchemas.fromUntrusted(parameters);
        for (JsonNode call : calls) {
            if (!expected.equals(call.path("name").asText())) {
                return Optional.of("called " + call.path("name").asText() + ", expected " + expected);
            }
            List<String> violations = schema.violations(call.path("arguments"));
            if (!violations.isEmpty()) {
                return Optional.of("the arguments of " + expected + " break its parameters schema: "
                        + String.join("; ", violations) + "; arguments " + Json.write(call.path("arguments")));
            }
        }
        return Optional.empty();
    }

    private static String canonical(JsonNode value) {
        return CanonicalJson.canonicalize(value);
    }

    private static int repetitions(List<GoldenCall> calls) {
        return calls.isEmpty() ? 0 : calls.get(0).repetitions();
    }
}
