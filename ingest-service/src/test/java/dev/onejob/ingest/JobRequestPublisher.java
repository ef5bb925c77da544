package dev.onejob.ingest;

import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * An upstream service that publishes to {@code job-requests} what no upstream should: any key, any value (or
 * none), any number of headers. Every record goes to partition 0, so a later record is read after an earlier one.
 */
final class JobRequestPublisher implements AutoCloseable {
    /** One record: {@code value} null is a tombstone; {@code deadLettered} says whether it is unreadable. */
    record Hostile(String requestId, String key, String value, int extraHeaders, boolean deadLettered) {
    }

    private final KafkaProducer<byte[], byte[]> producer;

    JobRequestPublisher(String bootstrapServers) {
        producer = new KafkaProducer<>(new KafkaConfig(bootstrapServers).producer("hostile-upstream"),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    RecordMetadata publish(Hostile record) {
        ProducerRecord<byte[], byte[]> sent = new ProducerRecord<>(Topics.JOB_REQUESTS.name(), 0,
                record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8),
                record.value() == null ? null : record.value().getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < record.extraHeaders(); i++) {
            sent.headers().add("x-hostile-" + i, ("header " + i + " ").repeat(8).getBytes(StandardCharsets.UTF_8));
        }
        sent.headers().add("request_id", record.requestId().getBytes(StandardCharsets.UTF_8));
        try {
            return producer.send(sent).get();
        } catch (Exception e) {
            throw new IllegalStateException("could not publish " + record.requestId(), e);
        }
    }

    /** The envelope as text; {@code owner} and {@code key} go in verbatim (a test may pass JSON escapes). */
    static String envelope(String owner, String key, String request) {
        return "{\"owner_id\":\"" + owner + "\",\"idempotency_key\":\"" + key + "\",\"request\":" + request + "}";
    }

    static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        producer.close();
    }
}
