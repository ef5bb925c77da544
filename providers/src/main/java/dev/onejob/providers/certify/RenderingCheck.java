package dev.onejob.providers.certify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.certification.CertificationCheck;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Prompt;
import dev.onejob.core.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code rendering} check: every golden input renders the contract's system and user templates with no slot
 * left unfilled.
 *
 * <p>Consumes a contract; produces one {@link CertificationCheck}. Pure, and independent of the provider (it is
 * part of every provider's certificate because a prompt that cannot be built cannot be sent anywhere). Fails when
 * rendering refuses an input (a slot without a value) or when the rendered text still holds {@code {{...}}} that
 * is not part of the input's own values (a slot the template engine did not recognise, e.g. {@code {{ 1st }}}).
 */
final class RenderingCheck {
    static final String NAME = "rendering";
    private static final Pattern SLOT_LIKE = Pattern.compile("\\{\\{[^{}]*}}");

    private RenderingCheck() {
    }

    static CertificationCheck check(Contract contract) {
        if (contract.golden().isEmpty()) {
            return CertificationCheck.of(NAME, false, "the contract has no golden inputs to render", null);
        }
        List<String> failures = new ArrayList<>();
        ArrayNode inputs = Json.MAPPER.createArrayNode();
        for (int i = 0; i < contract.golden().size(); i++) {
            JsonNode variables = contract.golden().get(i).variables();
            ObjectNode entry = inputs.addObject().put("input", GoldenCall.inputLabel(i));
            String problem = problem(contract, variables, entry);
            if (problem != null) {
                entry.put("problem", problem);
                failures.add(GoldenCall.inputLabel(i) + ": " + problem);
            }
        }
        ObjectNode details = Json.object();
        details.set("inputs", inputs);
        if (failures.isEmpty()) {
            return CertificationCheck.of(NAME, true, contract.golden().size() + " golden inputs render with every "
                    + "slot filled", details);
        }
        return CertificationCheck.of(NAME, false, Text.shorten(String.join("; ", failures)), details);
    }

    /** Why this input does not render cleanly, or {@code null}; records the rendered lengths in {@code entry}. */
    private static String problem(Contract contract, JsonNode variables, ObjectNode entry) {
        Prompt prompt;
        try {
            prompt = contract.prompt(variables);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        String user = prompt.conversationText();
        entry.put("system_chars", prompt.system().length()).put("user_chars", user.length());
        for (String rendered : List.of(prompt.system(), user)) {
            Matcher leftover = SLOT_LIKE.matcher(rendered);
            while (leftover.find()) {
                if (!inValues(variables, leftover.group())) {
                    return "the rendered prompt still holds " + leftover.group();
                }
            }
        }
        return null;
    }

    private static boolean inValues(JsonNode variables, String text) {
        for (JsonNode value : variables) {
            if ((value.isTextual() ? value.asText() : Json.write(value)).contains(text)) {
                return true;
            }
        }
        return false;
    }
}
