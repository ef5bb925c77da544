package dev.onejob.core.kafka;

/**
 * The consumer groups, Streams application ids and transactional-id prefixes onejob's services use, in one place:
 * the services take them from here, and {@link KafkaAcls} grants exactly these.
 */
public final class Groups {
    /** {@code ingest-service}'s group on the job-request topics. */
    public static final String INGEST = "ingest-service";
    /** The attempt workers' group on {@code attempt-commands}. */
    public static final String WORKER = "attempt-worker";
    /** The attempt workers' group on {@code certification-commands}: each request is run by one worker. */
    public static final String CERTIFIER = "attempt-worker-certifier";
    /**
     * The reconcilers' group on {@code attempt-completions}; also the prefix of their transactional ids, of the race
     * statistics' Streams application id and of that application's internal topics.
     */
    public static final String RECONCILER = "result-reconciler";
    /** The prefix of every outbox relay's transactional id (ingest and reconciler both run relays). */
    public static final String OUTBOX_RELAY_TRANSACTIONS = "onejob-outbox-relay-";

    private Groups() {
    }
}
