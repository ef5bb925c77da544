package dev.onejob.core.contract;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Prompt text with {@code {{variable}}} slots. Rendering refuses to leave a slot unfilled. */
public record PromptTemplate(String text) {
    private static final Pattern SLOT = Pattern.compile("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*}}");

    public Set<String> slots() {
        Set<String> names = new LinkedHashSet<>();
        Matcher m = SLOT.matcher(text);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** Fills every slot from {@code variables}: strings as they are, anything else as compact JSON. */
    public String render(JsonNode variables) {
        Matcher m = SLOT.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            JsonNode value = variables == null ? null : variables.get(m.group(1));
            if (value == null || value.isNull()) {
                throw new IllegalArgumentException("the template slot {{" + m.group(1) + "}} has no value");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value.isTextual() ? value.asText() : Json.write(value)));
        }
        m.appendTail(out);
        return out.toString();
    }
}
