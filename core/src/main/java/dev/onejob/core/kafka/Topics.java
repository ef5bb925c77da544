package dev.onejob.core.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;

/**
 * The typed topic registry: every topic onejob reads or writes, with its serdes. Keys are job ids (or owner ids on
 * {@code job-requests}), so every record about one job lands on one partition, in order.
 */
public final class Topics {
    private static final JsonSerde JSON = new JsonSerde();

    /** Upstream job requests, key owner id. */
    public static final Topic<String, JsonNode> JOB_REQUESTS = json("job-requests");
    /** Records of job-requests that could not be read, with the reason in headers. */
    public static final Topic<byte[], byte[]> JOB_REQUESTS_DLQ =
            new Topic<>("job-requests.dlq", Serdes.ByteArray(), Serdes.ByteArray());
    /** One answer per job request: CREATED, REPLAYED, CONFLICT, INVALID. */
    public static final Topic<String, JsonNode> JOB_REQUEST_OUTCOMES = json("job-request-outcomes");
    /** One command per attempt, key job id. */
    public static final Topic<String, JsonNode> ATTEMPT_COMMANDS = json("attempt-commands");
    /** Attempt commands a worker could not read, with the reason in headers. */
    public static final Topic<byte[], byte[]> ATTEMPT_COMMANDS_DLQ =
            new Topic<>("attempt-commands.dlq", Serdes.ByteArray(), Serdes.ByteArray());
    /** What each attempt did, key job id. */
    public static final Topic<String, JsonNode> ATTEMPT_COMPLETIONS = json("attempt-completions");
    public static final Topic<byte[], byte[]> ATTEMPT_COMPLETIONS_DLQ =
            new Topic<>("attempt-completions.dlq", Serdes.ByteArray(), Serdes.ByteArray());
    /** Pieces of streamed answers, key job id: a live view for the drop-in streams, kept an hour. */
    public static final Topic<String, JsonNode> ATTEMPT_CHUNKS = json("attempt-chunks");
    /** One command per certification request, key request id: the workers run certifications. */
    public static final Topic<String, JsonNode> CERTIFICATION_COMMANDS = json("certification-commands");
    /** Certification commands a worker could not read, with the reason in headers. */
    public static final Topic<byte[], byte[]> CERTIFICATION_COMMANDS_DLQ =
            new Topic<>("certification-commands.dlq", Serdes.ByteArray(), Serdes.ByteArray());
    /** One record per finished job, key job id. */
    public static final Topic<String, JsonNode> JOB_RESULTS = json("job-results");
    /** One record per discarded result, key job id. */
    public static final Topic<String, JsonNode> RACE_AUDIT = json("race-audit");
    /** Lost races per provider pair per hour, a Kafka Streams aggregate of race-audit. */
    public static final Topic<String, JsonNode> RACE_AUDIT_STATS = json("race-audit-stats");

    public static final List<Topic<?, ?>> ALL = List.of(JOB_REQUESTS, JOB_REQUESTS_DLQ, JOB_REQUEST_OUTCOMES,
            ATTEMPT_COMMANDS, ATTEMPT_COMMANDS_DLQ, ATTEMPT_COMPLETIONS, ATTEMPT_COMPLETIONS_DLQ, ATTEMPT_CHUNKS, JOB_RESULTS,
            RACE_AUDIT, RACE_AUDIT_STATS, CERTIFICATION_COMMANDS, CERTIFICATION_COMMANDS_DLQ);

    private Topics() {
    }

    private static Topic<String, JsonNode> json(String name) {
        return new Topic<>(name, Serdes.String(), JSON);
    }
}
