package dev.onejob.core.contract;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.JsonSchemas;
import java.util.ArrayList;
import java.util.List;

/**
 * A registered prompt template with the JSON Schemas of its variables and its output. {@code version} is the
 * SHA-256 of the canonical JSON of the template and both schemas: changing any of them makes a new version.
 *
 * <p>The built-in {@link Passthrough} contract ({@code passthrough} true) has no template and no fixed output
 * schema: each job's variables are the whole call, output schema included. Whichever kind, {@link #prompt} is what a
 * provider is sent.
 */
public record Contract(String id, String description, PromptTemplate system, PromptTemplate user,
                       JsonNode variablesSchema, JsonNode outputSchema, double temperature, int maxTokens,
                       List<GoldenInput> golden, String version, JsonSchemas variablesValidator,
                       JsonSchemas outputValidator, boolean passthrough) {

    /** A certification input and the fields its answer must have. */
    public record GoldenInput(JsonNode variables, JsonNode expect) {
    }

    /** Why these variables cannot be used with this contract; empty when they can. */
    public List<String> variableProblems(JsonNode variables) {
        if (variables == null || !variables.isObject()) {
            return List.of("variables must be a JSON object");
        }
        List<String> problems = new ArrayList<>(variablesValidator.violations(variables));
        if (passthrough && problems.isEmpty()) {
            problems.addAll(Passthrough.problems(variables));
        }
        return problems;
    }

    /**
     * What a provider is sent for these (valid) variables: the rendered template, or the passthrough call.
     *
     * @throws IllegalArgumentException when a template slot has no value (variables that were never validated)
     */
    public Prompt prompt(JsonNode variables) {
        if (passthrough) {
            return Passthrough.prompt(this, variables);
        }
        return new Prompt(id, system.render(variables), List.of(new Prompt.Turn("user", user.render(variables))),
                temperature, null, maxTokens, List.of(), outputSchema, Prompt.schemaNameOf(id), outputValidator);
    }

    /**
     * Why this answer cannot become a result of a template contract: invalid against the output schema (which forbids
     * invented keys). A passthrough job's answers are checked by its {@link #prompt}.
     */
    public List<String> outputProblems(JsonNode answer) {
        if (answer == null || !answer.isObject()) {
            return List.of("the answer is not a JSON object");
        }
        return outputValidator.violations(answer);
    }
}
