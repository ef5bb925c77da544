package dev.onejob.chaos.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.CanonicalJson;
import dev.onejob.core.json.Json;

/**
 * One user intent of the chaos load: an owner, an idempotency key and a payload. A pure function of the seed and the
 * intent's number, so every submission of it is byte-for-byte the same intent; {@link #conflicting()} is the same
 * key with another payload.
 */
record Intent(long number, String owner, String key, JsonNode body) {

    static Intent of(long seed, long number, String owner) {
        return new Intent(number, owner, "c" + Long.toUnsignedString(seed, 36) + "-" + number,
                body("Chaos intent " + number + ": the parcel came late but the support team was kind."));
    }

    Intent conflicting() {
        return new Intent(number, owner, key, body("Chaos intent " + number + ", changed: I want a refund."));
    }

    String fingerprint() {
        return CanonicalJson.fingerprint(body);
    }

    /** The job-requests envelope of this intent. */
    String envelope() {
        ObjectNode envelope = Json.object();
        envelope.put("owner_id", owner);
        envelope.put("idempotency_key", key);
        envelope.set("request", body);
        return Json.write(envelope);
    }

    private static JsonNode body(String text) {
        ObjectNode body = Json.object();
        body.put("contract", "sentiment");
        body.putObject("variables").put("text", text);
        body.put("target", "primary");
        body.putArray("fallbacks").add("backup");
        return body;
    }
}
