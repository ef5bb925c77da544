package dev.onejob.core.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.CanonicalJson;
import java.util.List;
import java.util.Objects;

/**
 * A validated request to create a job: who asks (from the credentials, never the body), under which idempotency
 * key, and the request as sent, whose canonical form is fingerprinted.
 */
public record NewJob(String ownerId, String idempotencyKey, JsonNode request, String contract, String targetProvider,
                     List<String> fallbackProviders) {

    public NewJob {
        Objects.requireNonNull(ownerId, "ownerId");
        IdempotencyKey.require(idempotencyKey);
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(contract, "contract");
        Objects.requireNonNull(targetProvider, "targetProvider");
        fallbackProviders = List.copyOf(fallbackProviders);
    }

    public String fingerprint() {
        return CanonicalJson.fingerprint(request);
    }
}
