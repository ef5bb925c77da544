package dev.onejob.core.kafka;

import dev.onejob.core.events.Headers;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The one shape of a dead letter, on every {@code .dlq} topic: the original record's key, value and headers, plus
 * why it was refused ({@code onejob-dlq-reason}), where it came from ({@code onejob-dlq-source},
 * {@code topic/partition/offset}, the same when a redelivered record is refused again) and when
 * ({@code onejob-dlq-detected-at}).
 */
public final class DeadLetters {
    private DeadLetters() {
    }

    /** The dead letter of {@code record} on {@code dlq}, refused for {@code reason}. */
    public static ProducerRecord<byte[], byte[]> letter(Topic<?, ?> dlq, ConsumerRecord<byte[], byte[]> record,
                                                        String reason) {
        ProducerRecord<byte[], byte[]> letter = new ProducerRecord<>(dlq.name(), null, record.key(), record.value(),
                record.headers());
        letter.headers().add(Headers.DLQ_REASON, reason.getBytes(StandardCharsets.UTF_8));
        letter.headers().add(Headers.DLQ_SOURCE, (record.topic() + "/" + record.partition() + "/" + record.offset())
                .getBytes(StandardCharsets.UTF_8));
        letter.headers().add(Headers.DLQ_DETECTED_AT, Instant.now().toString().getBytes(StandardCharsets.UTF_8));
        return letter;
    }

    /**
     * Sends the dead letter of {@code record} and waits for the broker to take it, for a loop that commits its offset
     * right after. Throws {@link BrokerUnavailableException} when the broker did not take it, so the record is read
     * again rather than lost.
     */
    public static void sendNow(Producer<byte[], byte[]> producer, Topic<?, ?> dlq, ConsumerRecord<byte[], byte[]> record,
                               String reason) {
        try {
            producer.send(letter(dlq, record, reason)).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while dead-lettering a record of " + record.topic(), e);
        } catch (Exception e) {
            throw new BrokerUnavailableException("the broker did not take a dead letter: " + e, e);
        }
    }
}
