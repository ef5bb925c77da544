package dev.onejob.ingest.kafka;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.kafka.BrokerUnavailableException;
import dev.onejob.core.kafka.DeadLetters;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.core.kafka.Topics;
import dev.onejob.ingest.IngestMetrics;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Publishes the answers of one poll of {@link JobRequestConsumer}: each record's outcome on its outcomes topic
 * ({@link JobRequestOutcomes}), a poison record's bytes also on {@code job-requests.dlq} with the reason, and waits
 * until the broker has taken every one (else the poll is not committed, and comes again). Used by the poll thread
 * only; the consumer owns and closes the producer.
 */
final class OutcomePublisher {
    // Logged under the consumer's name, as the consumer logged these lines before they moved here.
    private static final Logger log = LoggerFactory.getLogger(JobRequestConsumer.class);

    private final Producer<byte[], byte[]> producer;
    private final IngestMetrics metrics;

    OutcomePublisher(Producer<byte[], byte[]> producer, IngestMetrics metrics) {
        this.producer = producer;
        this.metrics = metrics;
    }

    void publish(List<ConsumerRecord<byte[], byte[]>> all, List<Object> answers) {
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            ConsumerRecord<byte[], byte[]> record = all.get(i);
            Object answer = answers.get(i);
            ObjectNode outcome = JobRequestOutcomes.of(record, answer).toJson();
            if (answer instanceof JobRequestRecords.Poison poison) {
                acks.add(producer.send(DeadLetters.letter(Topics.JOB_REQUESTS_DLQ, record, poison.reason())));
                metrics.deadLettered(Topics.JOB_REQUESTS.name());
                log.warn("event=dead_lettered topic={} partition={} offset={} reason=\"{}\"", record.topic(),
                        record.partition(), record.offset(), poison.reason());
            }
            if (answer instanceof JobRequestConsumerAnswers.NotPermitted refused) {
                log.warn("event=owner_not_permitted topic={} partition={} offset={} owner={} reason=\"{}\"",
                        record.topic(), record.partition(), record.offset(), quoted(refused.ownerId()),
                        refused.reason());
            }
            metrics.submitted("kafka", outcome.get("outcome").asText().toLowerCase());
            // A job created or replayed is counted (onejob_jobs_submitted), not logged at INFO: a line per job costs
            // the intake more than the rest of its answer; conflicts and refusals stay at INFO.
            String kind = outcome.get("outcome").asText();
            Level level = "CREATED".equals(kind) || "REPLAYED".equals(kind) ? Level.DEBUG : Level.INFO;
            if (log.isEnabledForLevel(level)) {
                log.atLevel(level).log("event=job_request channel=kafka outcome={} job={} owner={} request_id={}",
                        kind, outcome.path("job_id").asText(null), quoted(outcome.path("owner_id").asText(null)),
                        quoted(outcome.path("request_id").asText(null)));
            }
            String key = outcome.path("owner_id").isTextual() ? outcome.get("owner_id").asText() : null;
            ProducerRecord<byte[], byte[]> answerRecord = new ProducerRecord<>(answerTopic(record.topic()),
                    key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                    Json.write(outcome).getBytes(StandardCharsets.UTF_8));
            answerRecord.headers().add(Headers.SCHEMA_VERSION,
                    JobRequestOutcomes.SCHEMA_VERSION.getBytes(StandardCharsets.UTF_8));
            acks.add(producer.send(answerRecord));
        }
        producer.flush();
        for (Future<RecordMetadata> ack : acks) {
            try {
                ack.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while publishing the answers of a poll", e);
            } catch (Exception e) {
                // Not committing the offsets re-delivers the poll; the ledger answers it as REPLAYED.
                throw new BrokerUnavailableException("the broker did not take the answers of a poll: " + e, e);
            }
        }
    }

    /**
     * A value a producer chose, for a log line: quoted, with its quotes and backslashes escaped, so it cannot pose as
     * another field of the line (the log pattern escapes line breaks, so it cannot pose as another line either).
     */
    static String quoted(String value) {
        return value == null ? "null" : "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** A producer's own requests are answered on its own outcomes topic, the shared topic's on the shared one. */
    static String answerTopic(String requestTopic) {
        return KafkaPrincipals.producerOf(requestTopic).map(KafkaPrincipals::outcomesTopic)
                .orElse(Topics.JOB_REQUEST_OUTCOMES.name());
    }
}
