package dev.onejob.core.contract;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.JsonSchemas;
import java.util.List;

/**
 * One call's prompt, rendered and ready for any wire protocol: what every provider adapter sends, whichever way the
 * job was written (a template contract and its variables, or a passthrough call).
 *
 * @param contractId     the contract it was made from, for the messages that name it
 * @param system         the system text ("" for none)
 * @param turns          the conversation, oldest first; the last is the user's
 * @param temperature    the sampling temperature, or null to leave the provider's default
 * @param topP           nucleus sampling, or null to leave the provider's default
 * @param maxTokens      the most output tokens the call may produce
 * @param stop           stop sequences (empty for none)
 * @param outputSchema   the JSON Schema the answer must follow, or null for a free-text answer
 * @param schemaName     the name the schema is sent under ({@code [a-zA-Z0-9_-]{1,64}})
 * @param outputValidator validates a structured answer; null for free text
 */
public record Prompt(String contractId, String system, List<Turn> turns, Double temperature, Double topP,
                     int maxTokens, List<String> stop, JsonNode outputSchema, String schemaName,
                     JsonSchemas outputValidator) {

    /** The key of a free-text answer's one field: such an answer is stored as {@code {"text": "..."}}. */
    public static final String TEXT = "text";
    private static final int MAX_SCHEMA_NAME = 64;

    /** One message of the conversation: {@code user} or {@code assistant}, and its text. */
    public record Turn(String role, String text) {
    }

    public Prompt {
        turns = List.copyOf(turns);
        stop = List.copyOf(stop);
    }

    /** True when the answer must be a JSON object following {@link #outputSchema}; false for free text. */
    public boolean structured() {
        return outputSchema != null;
    }

    /**
     * Why {@code answer} cannot become a result: invalid against the output schema (which forbids invented keys),
     * or, for free text, not the {@code {"text": "..."}} object the adapters make of a text answer.
     */
    public List<String> outputProblems(JsonNode answer) {
        if (answer == null || !answer.isObject()) {
            return List.of("the answer is not a JSON object");
        }
        if (!structured()) {
            return answer.size() == 1 && answer.path(TEXT).isTextual() ? List.of()
                    : List.of("a free-text answer must be {\"text\": \"...\"}");
        }
        return outputValidator.violations(answer);
    }

    /** A contract id as a schema name: OpenAI accepts {@code [a-zA-Z0-9_-]{1,64}}. */
    public static String schemaNameOf(String contractId) {
        String name = contractId.replaceAll("[^a-zA-Z0-9_-]", "_");
        if (name.isEmpty()) {
            return "result";
        }
        return name.length() <= MAX_SCHEMA_NAME ? name : name.substring(0, MAX_SCHEMA_NAME);
    }

    /** Every turn's text, oldest first, one per line: what counts as the user's part for token estimates. */
    public String conversationText() {
        StringBuilder text = new StringBuilder();
        for (Turn turn : turns) {
            text.append(text.length() == 0 ? "" : "\n").append(turn.text());
        }
        return text.toString();
    }
}
