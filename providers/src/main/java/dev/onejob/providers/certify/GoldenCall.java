package dev.onejob.providers.certify;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.providers.CallOutcome;

/**
 * What one golden input got from the provider in one repetition: the final outcome and whether it came before the
 * provider's soft deadline.
 *
 * <p>Produced by {@link GoldenCalls}; consumed by the checks that judge answers ({@link StructureCheck},
 * {@link RoundTripCheck}, {@link OperationalCheck}). Owns nothing: an immutable value.
 *
 * @param input      the golden input's index in the contract
 * @param repetition 1 for the first time the input was sent, 2 for the second, ...
 */
record GoldenCall(int input, int repetition, int repetitions, CallOutcome outcome, boolean withinSoftTimeout) {

    /** {@code golden[1] repetition 2 of 3}, how evidence names a call. */
    String where() {
        return inputLabel(input) + " repetition " + repetition + " of " + repetitions;
    }

    static String inputLabel(int input) {
        return "golden[" + input + "]";
    }

    /** The call as evidence: where, the outcome's kind and, for a failure, its code, message and offending answer. */
    ObjectNode toJson() {
        ObjectNode json = Json.object().put("input", inputLabel(input)).put("repetition", repetition)
                .put("outcome", outcome.getClass().getSimpleName())
                .put("latency_ms", outcome.latency().toMillis());
        if (outcome instanceof CallOutcome.Succeeded succeeded) {
            json.set("answer", succeeded.result());
        } else if (outcome instanceof CallOutcome.Failed failed) {
            json.put("code", failed.code()).put("message", failed.message()).put("sent", failed.sent());
            if (failed.offendingAnswer() != null) {
                json.put("answer", failed.offendingAnswer());
            }
        } else if (outcome instanceof CallOutcome.Unknown unknown) {
            json.put("message", unknown.reason());
        }
        return json;
    }

    /** One line: {@code Failed contract_violation: ...; answer {...}}. */
    String describeOutcome() {
        if (outcome instanceof CallOutcome.Failed failed) {
            return "Failed " + failed.code() + ": " + failed.message()
                    + (failed.offendingAnswer() == null ? "" : "; answer " + failed.offendingAnswer());
        }
        if (outcome instanceof CallOutcome.Unknown unknown) {
            return "Unknown: " + unknown.reason();
        }
        return "Succeeded: " + Json.write(((CallOutcome.Succeeded) outcome).result());
    }
}
