package dev.onejob.chaos.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.CanonicalJson;
import dev.onejob.core.json.Json;

/**
 * One user intent of the chaos load: an owner, an idempotency key and a payload. A pure function of the seed and the
 * intent's number, so every submission of it is byte-for-byte the same intent; {@link #conflicting()} is the same
 * key with another payload. Most intents are {@code sentiment} jobs; every {@link #PASSTHROUGH_EVERY}-th is a
 * {@code passthrough} job, whose provider call is streamed (some of those for minutes: the plan's long streams).
 */
record Intent(long number, String owner, String key, JsonNode body) {

    /** Every this many intents, one is a passthrough job (a streamed call, as the drop-in endpoints make). */
    static final int PASSTHROUGH_EVERY = 5;

    static Intent of(long seed, long number, String owner) {
        return new Intent(number, owner, "c" + Long.toUnsignedString(seed, 36) + "-" + number,
                body(number, "Chaos intent " + number + ": the parcel came late but the support team was kind."));
    }

    Intent conflicting() {
        return new Intent(number, owner, key, body(number, "Chaos intent " + number + ", changed: I want a refund."));
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

    private static JsonNode body(long number, String text) {
        ObjectNode body = Json.object();
        if (number % PASSTHROUGH_EVERY == 0) {
            // The call of an app that uses the drop-in endpoints: free text, streamed from the provider.
            body.put("contract", "passthrough");
            ObjectNode variables = body.putObject("variables");
            variables.putArray("messages").addObject().put("role", "user").put("content", text);
            variables.put("max_tokens", 2000);
        } else {
            body.put("contract", "sentiment");
            body.putObject("variables").put("text", text);
        }
        body.put("target", "primary");
        body.putArray("fallbacks").add("backup");
        return body;
    }
}
