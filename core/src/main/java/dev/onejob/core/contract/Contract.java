package dev.onejob.core.contract;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.JsonSchemas;
import java.util.List;

/**
 * A registered prompt template with the JSON Schemas of its variables and its output. {@code version} is the
 * SHA-256 of the canonical JSON of the template and both schemas: changing any of them makes a new version.
 */
public record Contract(String id, String description, PromptTemplate system, PromptTemplate user,
                       JsonNode variablesSchema, JsonNode outputSchema, double temperature, int maxTokens,
                       List<GoldenInput> golden, String version, JsonSchemas variablesValidator,
                       JsonSchemas outputValidator) {

    /** A certification input and the fields its answer must have. */
    public record GoldenInput(JsonNode variables, JsonNode expect) {
    }

    /** Why these variables cannot be used with this contract; empty when they can. */
    public List<String> variableProblems(JsonNode variables) {
        if (variables == null || !variables.isObject()) {
            return List.of("variables must be a JSON object");
        }
        return variablesValidator.violations(variables);
    }

    /** Why this answer cannot become a result: invalid against the output schema (which forbids invented keys). */
    public List<String> outputProblems(JsonNode answer) {
        if (answer == null || !answer.isObject()) {
            return List.of("the answer is not a JSON object");
        }
        return outputValidator.violations(answer);
    }
}
