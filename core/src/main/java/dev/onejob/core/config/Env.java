package dev.onejob.core.config;

/**
 * The name of every environment variable a onejob service reads, in one place; docs/configuration.md gives each
 * its default and range. Parse them with {@link Settings}, never with a string literal of the name.
 */
public final class Env {
    // Every service
    public static final String DATABASE_URL = "DATABASE_URL";
    public static final String DATABASE_USER = "DATABASE_USER";
    public static final String DATABASE_PASSWORD = "DATABASE_PASSWORD";
    public static final String DATABASE_POOL_SIZE = "DATABASE_POOL_SIZE";
    public static final String DATABASE_CONNECT_TIMEOUT = "DATABASE_CONNECT_TIMEOUT";
    public static final String DATABASE_SOCKET_TIMEOUT = "DATABASE_SOCKET_TIMEOUT";
    public static final String DATABASE_STATEMENT_TIMEOUT = "DATABASE_STATEMENT_TIMEOUT";
    public static final String DATABASE_LOCK_TIMEOUT = "DATABASE_LOCK_TIMEOUT";
    public static final String KAFKA_BOOTSTRAP_SERVERS = "KAFKA_BOOTSTRAP_SERVERS";
    public static final String KAFKA_TOPIC_PARTITIONS = "KAFKA_TOPIC_PARTITIONS";
    public static final String KAFKA_REPLICATION_FACTOR = "KAFKA_REPLICATION_FACTOR";
    public static final String KAFKA_MIN_INSYNC_REPLICAS = "KAFKA_MIN_INSYNC_REPLICAS";
    /** The port of the local stack's in-process broker ({@code ./onejob dev}: 9092; 0 any free port). */
    public static final String KAFKA_PORT = "KAFKA_PORT";
    public static final String KAFKA_MAX_POLL_INTERVAL_MS = "KAFKA_MAX_POLL_INTERVAL_MS";
    /**
     * Who is who on an authenticated cluster: service and producer principals, and where job requests' owners come
     * from (ingest; {@code ./onejob kafka acls}); a missing file trusts the records' owners.
     */
    public static final String KAFKA_PRINCIPALS_FILE = "KAFKA_PRINCIPALS_FILE";
    public static final String PROVIDERS_FILE = "PROVIDERS_FILE";
    /** Per-owner spend caps and live-attempt limits (ingest); a missing file limits nobody. */
    public static final String OWNERS_FILE = "OWNERS_FILE";
    /** How long after its creation a finished job moves to the archive (ingest; 0s = never). */
    public static final String ARCHIVE_AFTER = "ARCHIVE_AFTER";
    /** How often key retention runs: archiving finished jobs and expiring tombstones (ingest). */
    public static final String RETENTION_EVERY = "RETENTION_EVERY";
    public static final String CONTRACTS_DIR = "CONTRACTS_DIR";
    public static final String INSTANCE_ID = "INSTANCE_ID";
    public static final String METRICS_PORT = "METRICS_PORT";
    public static final String OUTBOX_RELAY = "OUTBOX_RELAY";
    public static final String OUTBOX_RETENTION = "OUTBOX_RETENTION";

    // ingest-service
    public static final String HTTP_HOST = "HTTP_HOST";
    public static final String HTTP_PORT = "HTTP_PORT";
    public static final String HTTP_MAX_BODY_BYTES = "HTTP_MAX_BODY_BYTES";
    public static final String HTTP_THREADS = "HTTP_THREADS";
    public static final String HTTP_MAX_CONNECTIONS = "HTTP_MAX_CONNECTIONS";
    public static final String HTTP_MAX_HEADER_BYTES = "HTTP_MAX_HEADER_BYTES";
    public static final String HTTP_IDLE_TIMEOUT = "HTTP_IDLE_TIMEOUT";
    public static final String HTTP_REQUEST_HEAD_TIMEOUT = "HTTP_REQUEST_HEAD_TIMEOUT";
    public static final String HTTP_REQUEST_BODY_TIMEOUT = "HTTP_REQUEST_BODY_TIMEOUT";
    public static final String HTTP_MIN_BODY_RATE = "HTTP_MIN_BODY_RATE";
    public static final String HTTP_TLS_CERT_FILE = "HTTP_TLS_CERT_FILE";
    public static final String HTTP_TLS_KEY_FILE = "HTTP_TLS_KEY_FILE";
    public static final String TOKENS_FILE = "TOKENS_FILE";
    public static final String RATE_LIMIT_PER_OWNER = "RATE_LIMIT_PER_OWNER";
    public static final String HTTP_GROUP_COMMITTERS = "HTTP_GROUP_COMMITTERS";
    public static final String HTTP_GROUP_COMMIT_MAX = "HTTP_GROUP_COMMIT_MAX";
    public static final String HTTP_SHED_QUEUE_WAIT = "HTTP_SHED_QUEUE_WAIT";
    public static final String HTTP_SHED_BACKLOG = "HTTP_SHED_BACKLOG";
    public static final String HTTP_MAX_WAIT = "HTTP_MAX_WAIT";
    public static final String HTTP_WAIT_RECHECK = "HTTP_WAIT_RECHECK";
    public static final String HTTP_MAX_REQUESTS_PER_OWNER = "HTTP_MAX_REQUESTS_PER_OWNER";
    public static final String HTTP_MAX_WAITS_PER_OWNER = "HTTP_MAX_WAITS_PER_OWNER";
    public static final String HTTP_MAX_STREAMS_PER_OWNER = "HTTP_MAX_STREAMS_PER_OWNER";

    // attempt-worker
    public static final String WORKER_MAX_IN_FLIGHT = "WORKER_MAX_IN_FLIGHT";
    public static final String WORKER_DRAIN_TIMEOUT = "WORKER_DRAIN_TIMEOUT";

    // result-reconciler
    public static final String SWEEP_INTERVAL = "SWEEP_INTERVAL";
    /**
     * {@code required} (default): the reconciler applies only completions that carry their attempt's start token;
     * {@code optional}: one without a token (written by a worker from before version 3) is applied unchecked, for
     * the length of a rolling upgrade (result-reconciler).
     */
    public static final String START_TOKENS = "START_TOKENS";
    public static final String COMPLETION_THREADS = "COMPLETION_THREADS";
    public static final String STREAMS_STATE_DIR = "STREAMS_STATE_DIR";
    public static final String CERTIFY_INTERVAL = "CERTIFY_INTERVAL";
    public static final String CERTIFICATION_MAX_AGE = "CERTIFICATION_MAX_AGE";
    public static final String CERTIFY_WAIT = "CERTIFY_WAIT";

    // The local stack (./onejob dev) and its harnesses
    public static final String ONEJOB_DATA_DIR = "ONEJOB_DATA_DIR";
    public static final String ONEJOB_SIMULATORS = "ONEJOB_SIMULATORS";
    public static final String CERTIFY_ON_START = "CERTIFY_ON_START";
    public static final String SIM_PRIMARY_PORT = "SIM_PRIMARY_PORT";
    public static final String SIM_BACKUP_PORT = "SIM_BACKUP_PORT";

    private Env() {
    }
}
