package dev.onejob.core.events;

/** The Kafka header names onejob writes and reads, in one place. Values are UTF-8 text. */
public final class Headers {
    /** The event's schema version ({@code 1} for the {@code .v1} schemas under {@code events/}). */
    public static final String SCHEMA_VERSION = "onejob-schema-version";
    /** The outbox row's event id: what a relay looks for before it publishes a re-claimed row again. */
    public static final String EVENT_ID = "onejob-event-id";
    /** On a dead letter: why the record was refused. */
    public static final String DLQ_REASON = "onejob-dlq-reason";
    /** On a dead letter: where the record was ({@code topic/partition/offset}). */
    public static final String DLQ_SOURCE = "onejob-dlq-source";
    /** On a dead letter of the reconciler: when it was refused. */
    public static final String DLQ_DETECTED_AT = "onejob-dlq-detected-at";
    /** On a job request, optional: the requester's own id, echoed on its outcome. */
    public static final String REQUEST_ID = "request_id";

    private Headers() {
    }
}
