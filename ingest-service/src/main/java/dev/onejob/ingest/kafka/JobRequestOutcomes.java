package dev.onejob.ingest.kafka;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.SubmitOutcome;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The one answer each {@code job-requests} record gets on {@code job-request-outcomes}: the requester's identity as
 * far as it could be read, the outcome, the job id where there is one and the problem otherwise, and where the
 * request was (topic, partition, offset) so a requester without a request_id can still correlate.
 */
final class JobRequestOutcomes {
    /** Version of {@code events/job-request-outcome.v1.schema.json}, sent in the schema-version header. */
    static final String SCHEMA_VERSION = "1";
    /**
     * Anything echoed from the request is cut to this many characters, and at most {@link #MAX_ERRORS} errors are
     * listed: an answer must always fit on its topic, or the record it answers could never be answered.
     */
    static final int MAX_ECHO = 1024;
    static final int MAX_ERRORS = 20;

    private JobRequestOutcomes() {
    }

    static ObjectNode of(ConsumerRecord<byte[], byte[]> record, Object answer) {
        ObjectNode outcome = Json.object();
        nullable(outcome, "request_id", bounded(JobRequestRecords.header(record, JobRequestRecords.REQUEST_ID_HEADER)));
        ObjectNode source = outcome.putObject("source");
        source.put("topic", record.topic());
        source.put("partition", record.partition());
        source.put("offset", record.offset());
        if (answer instanceof JobRequestRecords.Poison poison) {
            identity(outcome, poison.ownerId(), poison.idempotencyKey());
            invalid(outcome, "malformed-record", poison.reason(), java.util.List.of(poison.reason()));
        } else if (answer instanceof JobRequestConsumerAnswers.Invalid invalid) {
            identity(outcome, invalid.ownerId(), invalid.idempotencyKey());
            invalid(outcome, "invalid-request", String.join("; ", invalid.problems()), invalid.problems());
        } else {
            JobRequestConsumerAnswers.Submitted submitted = (JobRequestConsumerAnswers.Submitted) answer;
            identity(outcome, submitted.ownerId(), submitted.idempotencyKey());
            SubmitOutcome result = submitted.outcome();
            if (result instanceof SubmitOutcome.Created created) {
                outcome.put("outcome", "CREATED");
                outcome.put("job_id", created.job().id().toString());
            } else if (result instanceof SubmitOutcome.Replayed replayed) {
                outcome.put("outcome", "REPLAYED");
                outcome.put("job_id", replayed.job().id().toString());
            } else if (result instanceof SubmitOutcome.Refused refused) {
                invalid(outcome, "invalid-request", refused.reason(), java.util.List.of(refused.reason()));
            } else {
                SubmitOutcome.Conflict conflict = (SubmitOutcome.Conflict) result;
                outcome.put("outcome", "CONFLICT");
                outcome.put("job_id", conflict.existingJobId().toString());
                problem(outcome, "idempotency-key-reused", "this idempotency key already names job "
                        + conflict.existingJobId() + ", created from a different request");
            }
            if (!outcome.has("problem")) {
                outcome.putNull("problem");
            }
        }
        return outcome;
    }

    private static void identity(ObjectNode outcome, String ownerId, String key) {
        nullable(outcome, "owner_id", bounded(ownerId));
        nullable(outcome, "idempotency_key", bounded(key));
    }

    static String bounded(String text) {
        if (text == null || text.length() <= MAX_ECHO) {
            return text;
        }
        return text.substring(0, MAX_ECHO) + "... (" + (text.length() - MAX_ECHO) + " more characters)";
    }

    private static void invalid(ObjectNode outcome, String type, String detail, java.util.List<String> errors) {
        outcome.put("outcome", "INVALID");
        outcome.putNull("job_id");
        ObjectNode problem = problem(outcome, type, detail);
        var array = problem.putArray("errors");
        errors.stream().limit(MAX_ERRORS).map(JobRequestOutcomes::bounded).forEach(array::add);
        if (errors.size() > MAX_ERRORS) {
            array.add("... and " + (errors.size() - MAX_ERRORS) + " more");
        }
    }

    private static ObjectNode problem(ObjectNode outcome, String type, String detail) {
        ObjectNode problem = outcome.putObject("problem");
        problem.put("type", "https://onejob.dev/problems/" + type);
        problem.put("detail", bounded(detail));
        return problem;
    }

    private static void nullable(ObjectNode node, String field, String value) {
        if (value == null) {
            node.putNull(field);
        } else {
            node.put(field, value);
        }
    }
}
