package dev.onejob.core.outbox;

import dev.onejob.core.db.Database;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.Topics;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The {@link OutboxRelay}'s path for the topics whose events need no Kafka transaction ({@link #TOPICS}): each
 * leased row is sent with an idempotent producer, and marked sent once the broker acknowledged it. Nothing is lost (a
 * row is marked only after its acknowledgement), but a relay that dies between the two leaves its rows to be sent
 * again when the lease runs out: such an event can reach its topic twice, with the same event id.
 *
 * <p>That is sound only for events whose every copy after the first is harmless by construction: an attempt command
 * asks a worker to start an attempt, and the start is a conditional write ({@code PENDING} to {@code STARTING}), so a
 * second copy finds the attempt started and calls nothing. Job results and race records keep the transaction: their
 * readers count them. What a command saves: the transaction's two coordinator round trips and its commit markers,
 * the relay's check of the topic for an earlier copy, and the lock of the rows around the commit.
 */
final class UntransactedSends implements AutoCloseable {
    /** The topics whose outbox events are sent without a Kafka transaction. */
    static final Set<String> TOPICS = Set.of(Topics.ATTEMPT_COMMANDS.name());
    private static final Duration ACK_WAIT = Duration.ofSeconds(35);

    private final Database database;
    private final KafkaProducer<String, byte[]> producer;
    private final Counter relayed;
    private final Counter parked;

    UntransactedSends(Database database, KafkaConfig kafka, String clientId, Counter relayed, Counter parked) {
        this.database = database;
        this.producer = new KafkaProducer<>(kafka.producer(clientId + "-untransacted"), new StringSerializer(),
                new ByteArraySerializer());
        this.relayed = relayed;
        this.parked = parked;
    }

    /**
     * Sends the events, waits for every acknowledgement (each send's own delivery timeout bounds the wait), then marks
     * the acknowledged rows sent, parks those the broker refused for what they are, and gives the rest back for the
     * next round. Returns how many rows it settled (sent or parked).
     */
    int publish(List<OutboxEvent> events, UUID holder, OutboxRelay.Hooks hooks) {
        List<Future<RecordMetadata>> sends = new ArrayList<>(events.size());
        for (OutboxEvent event : events) {
            sends.add(producer.send(OutboxRelay.record(event)));
        }
        List<OutboxEvent> acknowledged = new ArrayList<>(events.size());
        List<OutboxEvent> failed = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            if (acknowledged(sends.get(i))) {
                acknowledged.add(events.get(i));
            } else {
                failed.add(events.get(i));
            }
        }
        hooks.afterKafkaCommit(acknowledged);
        int marked = OutboxLeases.markSent(database, acknowledged, holder);
        relayed.increment(acknowledged.size());
        if (failed.isEmpty()) {
            return marked;
        }
        int refused = RefusedSends.park(database, events, sends, holder, parked);
        // A send that failed otherwise may still have been written: its next copy is as harmless as any other.
        List<OutboxEvent> retry = new ArrayList<>(failed.size());
        for (int i = 0; i < events.size(); i++) {
            if (failed.contains(events.get(i)) && RefusedSends.refusal(sends.get(i)) == null) {
                retry.add(events.get(i));
            }
        }
        OutboxLeases.releaseUnpublished(database, retry, holder);
        return marked + refused;
    }

    private static boolean acknowledged(Future<RecordMetadata> send) {
        try {
            send.get(ACK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
