package dev.onejob.core.outbox;

import dev.onejob.core.events.Headers;
import java.time.Instant;
import java.util.Map;

/**
 * One queued outbox event as a relay leases and publishes it ({@link OutboxLeases#lease}): its row id, topic, Kafka
 * key, payload (its JSON text, as stored: sent as it is, never parsed) and headers. {@code publishAttempts > 1} means
 * an earlier claim may have published it already.
 */
public record OutboxEvent(long id, String topic, String messageKey, String payload, Map<String, String> headers,
                          int publishAttempts, Instant createdAt) {
    /** The event id header: the topic and the dedupe key, by which a re-sent copy is recognised. */
    public String eventId() {
        return headers.get(Headers.EVENT_ID);
    }
}
