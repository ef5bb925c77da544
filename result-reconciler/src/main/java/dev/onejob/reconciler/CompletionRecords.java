package dev.onejob.reconciler;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.events.Headers;
import dev.onejob.core.json.Json;
import dev.onejob.core.json.StorableText;
import dev.onejob.core.kafka.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Reading an {@code attempt-completions} record, and its dead letter when it cannot be applied. */
final class CompletionRecords {
    private CompletionRecords() {
    }

    /** A completion, or why the record is dead-lettered before it reaches the ledger. */
    static Object read(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            return "the record has no value";
        }
        AttemptCompletion completion;
        try {
            JsonNode tree = Json.MAPPER.readTree(record.value());
            Optional<String> unstorable = StorableText.problem(tree);
            if (unstorable.isPresent()) {
                return "the completion cannot be stored: " + unstorable.get();
            }
            completion = AttemptCompletion.fromJson(tree);
        } catch (IOException e) {
            return "the value is not valid JSON: " + e.getMessage().lines().findFirst().orElse("");
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        if (record.key() == null || !completion.jobId().toString().equals(new String(record.key(),
                StandardCharsets.UTF_8))) {
            return "the record key must be the job id " + completion.jobId();
        }
        return completion;
    }

    static ProducerRecord<byte[], byte[]> deadLetter(ConsumerRecord<byte[], byte[]> record, String reason) {
        ProducerRecord<byte[], byte[]> letter = new ProducerRecord<>(Topics.ATTEMPT_COMPLETIONS_DLQ.name(), null,
                record.key(), record.value(), record.headers());
        letter.headers().add(Headers.DLQ_REASON, reason.getBytes(StandardCharsets.UTF_8));
        letter.headers().add(Headers.DLQ_SOURCE, (record.topic() + "/" + record.partition() + "/" + record.offset())
                .getBytes(StandardCharsets.UTF_8));
        letter.headers().add(Headers.DLQ_DETECTED_AT, Instant.now().toString().getBytes(StandardCharsets.UTF_8));
        return letter;
    }
}
