package dev.onejob.ingest.kafka;

import dev.onejob.core.events.JobRequestOutcome;
import dev.onejob.core.ledger.SubmitOutcome;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The one answer each {@code job-requests} record gets on {@code job-request-outcomes}: the requester's identity as
 * far as it could be read, the outcome, the job id where there is one and the problem otherwise, and where the
 * request was (topic, partition, offset) so a requester without a request_id can still correlate.
 */
final class JobRequestOutcomes {
    /** Version of {@code events/job-request-outcome.v2.schema.json}, sent in the schema-version header. */
    static final String SCHEMA_VERSION = Integer.toString(JobRequestOutcome.VERSION);
    private static final String PROBLEMS = "https://onejob.dev/problems/";
    /**
     * Anything echoed from the request is cut to this many characters, and at most {@link #MAX_ERRORS} errors are
     * listed: an answer must always fit on its topic, or the record it answers could never be answered.
     */
    static final int MAX_ECHO = 1024;
    static final int MAX_ERRORS = 20;

    private JobRequestOutcomes() {
    }

    static JobRequestOutcome of(ConsumerRecord<byte[], byte[]> record, Object answer) {
        String requestId = bounded(JobRequestRecords.header(record, JobRequestRecords.REQUEST_ID_HEADER));
        JobRequestOutcome.Source source = new JobRequestOutcome.Source(record.topic(), record.partition(),
                record.offset());
        if (answer instanceof JobRequestRecords.Poison poison) {
            return invalid(requestId, poison.ownerId(), poison.idempotencyKey(), "malformed-record", poison.reason(),
                    List.of(poison.reason()), source);
        }
        if (answer instanceof JobRequestConsumerAnswers.Invalid invalid) {
            return invalid(requestId, invalid.ownerId(), invalid.idempotencyKey(), "invalid-request",
                    String.join("; ", invalid.problems()), invalid.problems(), source);
        }
        if (answer instanceof JobRequestConsumerAnswers.NotPermitted refused) {
            // Nothing was written: the record's owner is not one its producer may submit for.
            return new JobRequestOutcome(requestId, bounded(refused.ownerId()), bounded(refused.idempotencyKey()),
                    "REJECTED", null, new JobRequestOutcome.Problem(PROBLEMS + "owner-not-permitted",
                            bounded(refused.reason()), null), source);
        }
        JobRequestConsumerAnswers.Submitted submitted = (JobRequestConsumerAnswers.Submitted) answer;
        String owner = bounded(submitted.ownerId());
        String key = bounded(submitted.idempotencyKey());
        SubmitOutcome result = submitted.outcome();
        if (result instanceof SubmitOutcome.Created created) {
            return new JobRequestOutcome(requestId, owner, key, "CREATED", created.job().id(), null, source);
        }
        if (result instanceof SubmitOutcome.Replayed replayed) {
            return new JobRequestOutcome(requestId, owner, key, "REPLAYED", replayed.job().id(), null, source);
        }
        if (result instanceof SubmitOutcome.Refused refused) {
            return invalid(requestId, submitted.ownerId(), submitted.idempotencyKey(), "invalid-request",
                    refused.reason(), List.of(refused.reason()), source);
        }
        if (result instanceof SubmitOutcome.OverLimit over) {
            // Valid, and not written: the owner's limit said no. The key stays free for a later request.
            return new JobRequestOutcome(requestId, owner, key, "REJECTED", null, new JobRequestOutcome.Problem(
                    PROBLEMS + problemType(over), bounded(over.reason()), null), source);
        }
        SubmitOutcome.Conflict conflict = (SubmitOutcome.Conflict) result;
        return new JobRequestOutcome(requestId, owner, key, "CONFLICT", conflict.existingJobId(),
                new JobRequestOutcome.Problem(PROBLEMS + "idempotency-key-reused", bounded("this idempotency key "
                        + "already names job " + conflict.existingJobId() + ", created from a different request"),
                        null), source);
    }

    /** The problem type of a refusal by a limit, the same over HTTP and Kafka. */
    static String problemType(SubmitOutcome.OverLimit over) {
        return over.limit() == SubmitOutcome.OverLimit.Limit.SPEND_CAP ? "budget-exceeded" : "too-many-live-attempts";
    }

    private static JobRequestOutcome invalid(String requestId, String ownerId, String key, String type, String detail,
                                             List<String> errors, JobRequestOutcome.Source source) {
        List<String> listed = new ArrayList<>(errors.stream().limit(MAX_ERRORS).map(JobRequestOutcomes::bounded)
                .toList());
        if (errors.size() > MAX_ERRORS) {
            listed.add("... and " + (errors.size() - MAX_ERRORS) + " more");
        }
        return new JobRequestOutcome(requestId, bounded(ownerId), bounded(key), "INVALID", null,
                new JobRequestOutcome.Problem(PROBLEMS + type, bounded(detail), listed), source);
    }

    static String bounded(String text) {
        if (text == null || text.length() <= MAX_ECHO) {
            return text;
        }
        return text.substring(0, MAX_ECHO) + "... (" + (text.length() - MAX_ECHO) + " more characters)";
    }
}
