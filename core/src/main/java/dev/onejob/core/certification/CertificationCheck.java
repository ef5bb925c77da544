package dev.onejob.core.certification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import java.util.Objects;

/**
 * One check of a certification run and its verdict.
 *
 * <p>Produced by the certifier (one per check it runs) and read back by {@link CertificationStore} from the
 * {@code checks} column; consumed by reports and by the gate's reasons. Owns nothing: an immutable value.
 *
 * @param name     the check, e.g. {@code structure}, {@code tokenizer}
 * @param passed   whether the provider passed it
 * @param evidence what was seen, as JSON; its {@code summary} field is the one-line account a report prints
 */
public record CertificationCheck(String name, boolean passed, JsonNode evidence) {

    public CertificationCheck {
        Objects.requireNonNull(name, "name");
        evidence = evidence == null ? Json.object() : evidence;
    }

    /** A check with {@code summary} as its one-line account and {@code details} merged into its evidence. */
    public static CertificationCheck of(String name, boolean passed, String summary, ObjectNode details) {
        ObjectNode evidence = Json.object().put("summary", summary);
        if (details != null) {
            evidence.setAll(details);
        }
        return new CertificationCheck(name, passed, evidence);
    }

    /** The evidence's one-line account, or an empty string when it has none. */
    public String summary() {
        return evidence.path("summary").asText("");
    }

    /** The check as stored in a certification's {@code checks} array. */
    public ObjectNode toJson() {
        ObjectNode json = Json.object().put("name", name).put("passed", passed);
        json.set("evidence", evidence);
        return json;
    }

    /** The check as {@link #toJson()} wrote it. */
    public static CertificationCheck fromJson(JsonNode json) {
        return new CertificationCheck(json.path("name").asText(), json.path("passed").asBoolean(false),
                json.get("evidence"));
    }
}
