package dev.onejob.core.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** A row of {@code jobs}: the durable record of what the user wants, and how it ended. */
public record Job(UUID id, String ownerId, String idempotencyKey, String requestFingerprint, JsonNode request,
                  String contract, String targetProvider, List<String> fallbackProviders, JobStatus status,
                  long version, UUID completedBy, JsonNode result, String errorCode, String errorMessage,
                  Instant createdAt, Instant updatedAt, Instant finishedAt) {

    /** Target first, then the fallbacks in the order the caller allowed them. */
    public List<String> providerChain() {
        var chain = new ArrayList<String>(1 + fallbackProviders.size());
        chain.add(targetProvider);
        chain.addAll(fallbackProviders);
        return chain;
    }
}
